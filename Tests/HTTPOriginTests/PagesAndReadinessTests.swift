import Foundation
import HTTPOrigin
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LLHLSPackager
import Logging
import NIOCore
import StreamHub
import Testing

/// The pages and `/readyz` through the router: server-side values land as escaped JSON, bad keys are refused,
/// readiness follows the app's phases.
@Suite("Pages and readiness")
struct PagesAndReadinessTests {
    static func router(_ options: HTTPOriginOptions) -> Router<OriginRequestContext> {
        OriginRoutes.router(packager: LLHLSPackager(hub: StreamHub(), logger: Logger(label: "t")), options: options)
    }

    @Test func readyzFollowsStartingReadyDraining() async throws {
        let options = HTTPOriginOptions()
        let app = Application(router: Self.router(options))
        try await app.test(.router) { client in
            var r = try await client.execute(uri: "/readyz", method: .get)
            #expect(r.status == .serviceUnavailable && String(buffer: r.body) == "starting\n")
            options.readiness.markReady()
            r = try await client.execute(uri: "/readyz", method: .get)
            #expect(r.status == .ok && String(buffer: r.body) == "ready\n")
            options.readiness.markDraining()
            options.readiness.markReady()  // draining is final
            r = try await client.execute(uri: "/readyz", method: .get)
            #expect(r.status == .serviceUnavailable && String(buffer: r.body) == "draining\n")
        }
    }

    /// A hostile hls.js URL cannot close the config <script>: `<`, `>` and `&` arrive as \u escapes.
    @Test func watchPageCarriesConfigAsScriptSafeJSON() async throws {
        var o = HTTPOriginOptions()
        o.hlsjsURL = "https://cdn.example/x.js?</script><script>alert(1)</script>&a=1"
        let options = o
        let app = Application(router: Self.router(options))
        try await app.test(.router) { client in
            let r = try await client.execute(uri: "/watch/my-stream_1.0", method: .get)
            let html = String(buffer: r.body)
            #expect(r.status == .ok && r.headers[.contentType] == "text/html; charset=utf-8")
            #expect(html.contains("<title>my-stream_1.0 — Sluice</title>"))
            #expect(!html.contains("alert(1)</script>") && html.contains(#"\u003c\/script\u003e"#))
            let start = try #require(html.range(of: #"<script id="config" type="application/json">"#))
            let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
            let json =
                try JSONSerialization.jsonObject(with: Data(html[start.upperBound..<end.lowerBound].utf8))
                as? [String: String]
            #expect(json == ["hlsjsUrl": options.hlsjsURL, "key": "my-stream_1.0"])
        }
    }

    @Test(arguments: ["/watch/a%3Cb%3E", "/watch/a%22b", "/watch/" + String(repeating: "k", count: 300)])
    func watchRefusesWhatIsNotAStreamKey(uri: String) async throws {
        let app = Application(router: Self.router(HTTPOriginOptions()))
        try await app.test(.router) { client in
            let r = try await client.execute(uri: uri, method: .get)
            #expect(r.status == .notFound)
        }
    }

    @Test(arguments: [
        ("/", "text/html; charset=utf-8", "stream-table"), ("/dashboard", "text/html; charset=utf-8", "<svg"),
        ("/pages/sluice.js", "text/javascript; charset=utf-8", "const Sluice"),
        ("/pages/sluice.css", "text/css; charset=utf-8", "#overlay"),
    ])
    func pagesAreServedFromTheBinary(uri: String, type: String, marker: String) async throws {
        let app = Application(router: Self.router(HTTPOriginOptions()))
        try await app.test(.router) { client in
            let r = try await client.execute(uri: uri, method: .get)
            #expect(r.status == .ok && r.headers[.contentType] == type)
            #expect(r.headers[.cacheControl] == "no-cache" && String(buffer: r.body).contains(marker))
            #expect(!String(buffer: r.body).contains("{{"), "a template placeholder was left in \(uri)")
        }
    }
}
