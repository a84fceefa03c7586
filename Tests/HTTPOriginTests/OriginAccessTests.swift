import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import MediaCore
import NIOCore
import StreamHub
import Testing

@testable import HTTPOrigin
@testable import LLHLSPackager

/// Viewer tokens in the path and the bound on waiting blocking requests, through the router.
@Suite("Origin access")
struct OriginAccessTests {
    /// The default access rules changed by `configure`.
    static func access(_ configure: (inout OriginAccess) -> Void) -> OriginAccess {
        var access = OriginAccess()
        configure(&access)
        return access
    }

    static func withOrigin(
        _ access: OriginAccess,
        waiting: BlockingCounter = BlockingCounter(),
        _ body: @Sendable (OriginFixture, any TestClientProtocol) async throws -> Void
    ) async throws {
        let fixture = try await OriginFixture()
        var options = HTTPOriginOptions()
        options.access = access
        let app = Application(
            router: OriginRoutes.router(packager: fixture.packager, options: options, waiting: waiting)
        )
        do {
            try await app.test(.router) { client in try await body(fixture, client) }
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }

    static var now: Int64 { WallTime.now().nanosecondsSince1970 / 1_000_000_000 }

    @Test func withAViewerSecretOnlyTokenPathsServeMedia() async throws {
        try await Self.withOrigin(Self.access { $0.viewerSecret = "v1" }) { _, client in
            let bare = try await client.execute(uri: "/live/demo/index.m3u8", method: .get)
            #expect(bare.status == .forbidden)
            let token = SignedToken.viewerToken(key: "demo", expiry: Self.now + 600, secret: "v1")
            let ok = try await client.execute(uri: "/t/\(token)/live/demo/index.m3u8", method: .get)
            #expect(ok.status == .ok)
            // Relative URIs in the playlist resolve under the same token prefix.
            let media = try await client.execute(uri: "/t/\(token)/live/demo/video.m3u8?_HLS_skip=YES", method: .get)
            #expect(media.status == .ok)
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
        }
    }

    @Test func expiredForeignOrForgedTokensAre403() async throws {
        try await Self.withOrigin(Self.access { $0.viewerSecret = "v1" }) { _, client in
            let expired = SignedToken.viewerToken(key: "demo", expiry: Self.now - 1, secret: "v1")
            let foreign = SignedToken.viewerToken(key: "other", expiry: Self.now + 600, secret: "v1")
            let forged = SignedToken.viewerToken(key: "demo", expiry: Self.now + 600, secret: "guess")
            for token in [expired, foreign, forged, "garbage"] {
                let r = try await client.execute(uri: "/t/\(token)/live/demo/index.m3u8", method: .get)
                #expect(r.status == .forbidden, "token \(token)")
            }
        }
    }

    @Test func blockingRequestsBeyondThePerStreamLimitGet503WithRetryAfter() async throws {
        let access = Self.access {
            $0.maxBlockingPerStream = 1
            $0.retryAfter = .seconds(2)
        }
        try await Self.withOrigin(access) { fixture, client in
            let stream = try requireStream(fixture.packager.stream(for: OriginFixture.key))
            let next = (try #require(stream.summary().lastMSN)) + 1
            let uri = "/live/demo/video.m3u8?_HLS_msn=\(next)"
            async let held = client.execute(uri: uri, method: .get)
            // Wait until the first request is parked in the packager before sending the second.
            try await OriginFixture.eventually { stream.blockedRequests > 0 }
            let refused = try await client.execute(uri: uri, method: .get)
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.headers[.retryAfter] == "2")
            // Non-blocking requests are not counted.
            #expect(try await client.execute(uri: "/live/demo/video.m3u8", method: .get).status == .ok)
            _ = try await held
            let after = try await client.execute(uri: "/live/demo/video.m3u8?_HLS_msn=0", method: .get)
            #expect(after.status == .ok)
        }
    }

    @Test func playlistsHeldForAStreamNotLiveYetCountAgainstTheLimit() async throws {
        let access = Self.access {
            $0.maxBlockingPerStream = 1
            $0.retryAfter = .seconds(3)
        }
        let waiting = BlockingCounter()
        try await Self.withOrigin(access, waiting: waiting) { fixture, client in
            // "early" has no publisher: its playlist is held for up to hls.start_wait_s (8 s by default).
            async let held = client.execute(uri: "/live/early/index.m3u8", method: .get)
            try await OriginFixture.eventually { waiting.waiting("early") == 1 }
            let refused = try await client.execute(uri: "/live/early/video.m3u8", method: .get)
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.headers[.retryAfter] == "3")
            // A live stream's plain playlist is answered at once and not counted.
            #expect(try await client.execute(uri: "/live/demo/video.m3u8", method: .get).status == .ok)
            #expect(waiting.waiting() == 1)
            // The publisher arrives: the held request is answered and leaves the count.
            let publication = try fixture.hub.publish(key: StreamKey("early")!, origin: "test")
            _ = try await held
            #expect(waiting.waiting() == 0)
            publication.end()
        }
    }

    @Test func blockingCounterCountsPerKeyAndInTotal() {
        let c = BlockingCounter()
        #expect(c.enter("a", perStream: 2, total: 3))
        #expect(c.enter("a", perStream: 2, total: 3))
        #expect(!c.enter("a", perStream: 2, total: 3))
        #expect(c.enter("b", perStream: 2, total: 3))
        #expect(!c.enter("c", perStream: 2, total: 3))
        c.leave("a")
        #expect(c.waiting("a") == 1 && c.waiting() == 2)
        c.leave("a")
        c.leave("b")
        #expect(c.waiting() == 0)
    }
}
