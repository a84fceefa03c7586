import Foundation
import HTTPOrigin
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LLHLSPackager
import Logging
import NIOCore
import StreamHub
import Synchronization
import Testing

/// Routes a feature contributes (`HTTPOriginOptions.routeGroups`): served through the router with their path
/// parameters, header fields and a bounded body, their replies carried over as is, their preflight under their prefix.
@Suite("Contributed routes")
struct ContributedRouteTests {
    /// What the echo route saw.
    final class Seen: Sendable {
        let requests = Mutex<[OriginRequest]>([])
    }

    /// `POST /feature/:id` echoes id, a header and the body (at most 8 bytes); `DELETE` answers 204.
    static func app(_ seen: Seen) -> some ApplicationProtocol {
        var options = HTTPOriginOptions()
        options.routeGroups = [
            OriginRouteGroup(
                prefix: "/feature/",
                routes: [
                    OriginRoute(.post, "/feature/:id") { request in
                        seen.requests.withLock { $0.append(request) }
                        do throws(OriginRequest.BodyTooLarge) {
                            let body = try await request.body(upTo: 8)
                            let text = "\(request.parameters["id"] ?? "?") \(request.header("x-token") ?? "-") "
                            return OriginReply(
                                status: 201,
                                headers: [("Location", "/feature/1"), ("X-Twice", "a"), ("X-Twice", "b")],
                                body: Array(text.utf8) + body
                            )
                        } catch {
                            return OriginReply(status: 413, body: Array("limit \(error.limit)".utf8))
                        }
                    },
                    OriginRoute(.delete, "/feature/:id") { _ in OriginReply(status: 204) },
                ],
                preflight: ["Access-Control-Allow-Methods": "POST, DELETE, OPTIONS", "Accept-Post": "text/plain"]
            )
        ]
        let packager = LLHLSPackager(hub: StreamHub(), logger: Logger(label: "t"))
        return Application(router: OriginRoutes.router(packager: packager, options: options))
    }

    @Test func routeGetsParametersHeadersAndBody() async throws {
        let seen = Seen()
        try await Self.app(seen).test(.router) { client in
            let r = try await client.execute(
                uri: "/feature/abc",
                method: .post,
                headers: [HTTPField.Name("X-Token")!: "t1"],
                body: ByteBuffer(string: "hello")
            )
            #expect(r.status == .created)
            #expect(String(buffer: r.body) == "abc t1 hello")
            #expect(r.headers[.location] == "/feature/1")
            #expect(r.headers[values: HTTPField.Name("X-Twice")!] == ["a", "b"])
            let deleted = try await client.execute(uri: "/feature/abc", method: .delete)
            #expect(deleted.status == .noContent)
        }
        #expect(seen.requests.withLock { $0.map(\.parameters) } == [["id": "abc"]])
    }

    @Test func bodyPastTheLimitThrowsInsteadOfBeingRead() async throws {
        try await Self.app(Seen()).test(.router) { client in
            let r = try await client.execute(uri: "/feature/x", method: .post, body: ByteBuffer(string: "123456789"))
            #expect(r.status == .contentTooLarge)
            #expect(String(buffer: r.body) == "limit 8")
        }
    }

    /// The group's preflight fields replace the GET-only defaults under its prefix, and only there.
    @Test func preflightUnderThePrefixIsTheGroups() async throws {
        try await Self.app(Seen()).test(.router) { client in
            let mine = try await client.execute(uri: "/feature/x", method: .options)
            #expect(mine.status == .noContent)
            #expect(mine.headers[HTTPField.Name("Access-Control-Allow-Methods")!] == "POST, DELETE, OPTIONS")
            #expect(mine.headers[HTTPField.Name("Accept-Post")!] == "text/plain")
            let other = try await client.execute(uri: "/live/x/index.m3u8", method: .options)
            #expect(other.headers[HTTPField.Name("Access-Control-Allow-Methods")!] == "GET, HEAD, OPTIONS")
            #expect(other.headers[HTTPField.Name("Accept-Post")!] == nil)
        }
    }

    @Test func publishPageIsServedAndLinkedFromTheIndex() async throws {
        try await Self.app(Seen()).test(.router) { client in
            let page = try await client.execute(uri: "/publish", method: .get)
            #expect(page.status == .ok && page.headers[.contentType] == "text/html; charset=utf-8")
            let html = String(buffer: page.body)
            #expect(html.contains("getUserMedia") && html.contains("application/sdp") && !html.contains("{{CONFIG}}"))
            let index = String(buffer: try await client.execute(uri: "/", method: .get).body)
            #expect(index.contains("href=\"/publish\""))
        }
    }
}
