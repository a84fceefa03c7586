import HTTPOrigin
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LLHLSPackager
import Logging
import MediaCore
import NIOCore
import StreamHub
import Synchronization
import Testing

/// `HTTPOriginOptions.streamFallback`: asked where the origin would answer "unknown stream", its answer sent with the
/// origin's CORS fields; a relayed request (`X-Sluice-Relay`) is never passed on again.
@Suite("Stream fallback (cluster relay hook)")
struct StreamFallbackTests {
    /// The targets the fallback was asked for.
    final class Asked: Sendable {
        let targets = Mutex<[String]>([])
    }

    static func app(_ asked: Asked, answers: Bool = true) -> some ApplicationProtocol {
        var options = HTTPOriginOptions()
        options.streamFallback = StreamFallback { key, target in
            asked.targets.withLock { $0.append(target) }
            guard answers else { return nil }
            return FallbackResponse(
                status: 200,
                headers: [("Content-Type", "application/vnd.apple.mpegurl"), ("Cache-Control", "public, max-age=6")],
                body: ByteBuffer(string: "#EXTM3U\n# \(key)\n")
            )
        }
        var hls = LLHLSConfiguration()
        hls.startWait = .milliseconds(300)
        let packager = LLHLSPackager(hub: StreamHub(), configuration: hls, logger: Logger(label: "t"))
        return Application(router: OriginRoutes.router(packager: packager, options: options))
    }

    @Test func unknownKeyIsAnsweredByTheFallbackWithItsFieldsAndQuery() async throws {
        let asked = Asked()
        try await Self.app(asked).test(.router) { client in
            let r = try await client.execute(uri: "/live/far/video.m3u8?_HLS_msn=5&_HLS_part=1", method: .get)
            #expect(r.status == .ok)
            #expect(r.headers[.contentType] == "application/vnd.apple.mpegurl")
            #expect(r.headers[.cacheControl] == "public, max-age=6")
            #expect(r.headers[HTTPField.Name("Access-Control-Allow-Origin")!] == "*")
            #expect(String(buffer: r.body) == "#EXTM3U\n# far\n")
            let part = try await client.execute(uri: "/live/far/e1/video/3.1.m4s", method: .get)
            #expect(part.status == .ok)
        }
        #expect(
            asked.targets.withLock { $0 } == [
                "/live/far/video.m3u8?_HLS_msn=5&_HLS_part=1", "/live/far/e1/video/3.1.m4s",
            ]
        )
    }

    @Test func relayedRequestIsNeverPassedOnAgain() async throws {
        let asked = Asked()
        try await Self.app(asked).test(.router) { client in
            let r = try await client.execute(
                uri: "/live/far/e1/video/3.1.m4s",
                method: .get,
                headers: [HTTPField.Name("X-Sluice-Relay")!: "http://127.0.0.1:1"]
            )
            #expect(r.status == .notFound)
        }
        #expect(asked.targets.withLock { $0 }.isEmpty)
    }

    @Test func playlistWithoutOwnerAsksAgainThroughTheStartWaitThen404() async throws {
        let asked = Asked()
        let start = ContinuousClock.now
        try await Self.app(asked, answers: false).test(.router) { client in
            let r = try await client.execute(uri: "/live/nobody/index.m3u8", method: .get)
            #expect(r.status == .notFound)
        }
        #expect(ContinuousClock.now - start >= .milliseconds(300))
        #expect(asked.targets.withLock { $0.count } >= 1)
    }
}
