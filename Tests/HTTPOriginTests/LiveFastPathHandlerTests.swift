import HTTPTypes
import Logging
import MediaCore
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

@testable import HTTPOrigin
@testable import LLHLSPackager

/// `LiveFastPathHandler` in an `EmbeddedChannel`: which requests it takes, what it writes, and request order kept
/// when a router response is in progress.
@Suite("Fast path handler")
struct LiveFastPathHandlerTests {
    static func get(_ path: String, method: HTTPRequest.Method = .get) -> HTTPRequestPart {
        .head(HTTPRequest(method: method, scheme: "http", authority: "o", path: path))
    }

    static func fastPath(_ fixture: OriginFixture, access: OriginAccess = .init()) -> LiveFastPath {
        LiveFastPath(
            packager: fixture.packager,
            access: access,
            waiting: BlockingCounter(),
            logger: Logger(label: "t"),
            serverName: "Sluice"
        )
    }

    /// Reads every outbound part written so far.
    static func written(_ channel: EmbeddedChannel) throws -> [HTTPResponsePart] {
        var parts: [HTTPResponsePart] = []
        while let p = try channel.readOutbound(as: HTTPResponsePart.self) { parts.append(p) }
        return parts
    }

    @Test func aReadyPlaylistIsAnsweredOnTheLoopWithTheRoutersFields() async throws {
        let fixture = try await OriginFixture()
        let fastPath = Self.fastPath(fixture)
        let channel = EmbeddedChannel(handler: LiveFastPathHandler(fastPath))
        try channel.writeInbound(Self.get("/live/demo/video.m3u8"))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil)
        let parts = try Self.written(channel)
        #expect(parts.count == 3)
        guard parts.count == 3, case .head(let head) = parts[0], case .body(let body) = parts[1] else { return }
        #expect(head.status == .ok)
        #expect(head.headerFields[.contentType] == "application/vnd.apple.mpegurl")
        #expect(head.headerFields[.cacheControl] == "public, max-age=1")
        #expect(head.headerFields[.contentLength] == "\(body.readableBytes)")
        #expect(head.headerFields[HTTPField.Name("Access-Control-Allow-Origin")!] == "*")
        #expect(head.headerFields[.server] == "Sluice" && head.headerFields[.date]?.hasSuffix(" GMT") == true)
        #expect(String(buffer: body).hasPrefix("#EXTM3U\n"))
        #expect(fastPath.answered.total == 1)
        _ = try channel.finish()
        await fixture.stop()
    }

    @Test func whatTheFastPathDoesNotTakeGoesToTheRouter() async throws {
        let fixture = try await OriginFixture()
        for access in [OriginAccess(), OriginAccess.withViewerSecret] {
            let channel = EmbeddedChannel(handler: LiveFastPathHandler(Self.fastPath(fixture, access: access)))
            let passed = [
                Self.get("/healthz"), Self.get("/live/demo/index.m3u8"), Self.get("/live/nosuch/video.m3u8"),
                Self.get("/live/demo/video.m3u8", method: .head), Self.get("/live/demo/video.m3u8?_HLS_msn=x"),
                Self.get("/live/demo/nosuch.m3u8"), Self.get("/live/bad%20key/video.m3u8"),
                Self.get("/live/demo//video/0.m4s"),
            ]
            for head in passed {
                try channel.writeInbound(head)
                try channel.writeInbound(HTTPRequestPart.end(nil))
                #expect(try channel.readInbound(as: HTTPRequestPart.self) == head)
                #expect(try channel.readInbound(as: HTTPRequestPart.self) == .end(nil))
                // The router answers; only then may the next request go.
                try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .notFound)))
                try channel.writeOutbound(HTTPResponsePart.end(nil))
                #expect(try Self.written(channel).count == 2)
            }
            // With viewer tokens, bare /live/ paths and bad tokens are the router's 403s; without, token paths its 404s.
            let token = SignedToken.viewerToken(key: "demo", expiry: Self.now + 600, secret: "s")
            let late = SignedToken.viewerToken(key: "demo", expiry: Self.now - 1, secret: "s")
            let other = SignedToken.viewerToken(key: "demo", expiry: Self.now + 600, secret: "t")
            let routed =
                access.viewerSecret != nil
                ? ["/live/demo/video.m3u8", "/t/\(late)/live/demo/video.m3u8", "/t/\(other)/live/demo/video.m3u8"]
                : ["/t/\(token)/live/demo/video.m3u8"]
            for path in routed {
                try channel.writeInbound(Self.get(path))
                try channel.writeInbound(HTTPRequestPart.end(nil))
                #expect(try channel.readInbound(as: HTTPRequestPart.self) == Self.get(path))
                #expect(try channel.readInbound(as: HTTPRequestPart.self) == .end(nil))
                try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .forbidden)))
                try channel.writeOutbound(HTTPResponsePart.end(nil))
                #expect(try Self.written(channel).count == 2)
            }
            _ = try channel.finish()
        }
        await fixture.stop()
    }

    static var now: Int64 { WallTime.now().nanosecondsSince1970 / 1_000_000_000 }

    @Test func aValidViewerTokenIsAnsweredByTheFastPathAndCheckedOnce() async throws {
        let fixture = try await OriginFixture()
        let epoch = try await fixture.epoch()
        let fastPath = Self.fastPath(fixture, access: .withViewerSecret)
        let token = SignedToken.viewerToken(key: "demo", expiry: Self.now + 600, secret: "s")
        let paths = [
            "/t/\(token)/live/demo/video.m3u8",
            "/t/\(token)/live/demo/\(epoch)/video/\(PublishedRendition.firstMSN).0.m4s",
        ]
        for path in paths {
            let channel = EmbeddedChannel(handler: LiveFastPathHandler(fastPath))
            try channel.writeInbound(Self.get(path))
            #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil, "\(path) went to the router")
            guard case .head(let head) = try Self.written(channel).first else {
                Issue.record("no answer for \(path)")
                continue
            }
            #expect(head.status == .ok)
            _ = try channel.finish()
        }
        #expect(fastPath.answered.total == 2)
        // One HMAC for the token; the second request found it verified.
        #expect(fastPath.tokens?.count == 1)
        // The same token does not open another key.
        #expect(fastPath.tokens?.admits(Substring(token), key: "other", now: Self.now) == false)
        await fixture.stop()
    }

    @Test func aRequestBehindARouterResponseWaitsForItsEnd() async throws {
        let fixture = try await OriginFixture()
        let channel = EmbeddedChannel(handler: LiveFastPathHandler(Self.fastPath(fixture)))
        try channel.writeInbound(Self.get("/healthz"))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        try channel.writeInbound(Self.get("/live/demo/video.m3u8"))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.written(channel).isEmpty)
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        #expect(try Self.written(channel).count == 1)
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        // The router's end, then the held playlist's head, body and end.
        let parts = try Self.written(channel)
        #expect(parts.count == 4)
        if parts.count == 4, case .head(let head) = parts[1] {
            #expect(head.headerFields[.contentType] == "application/vnd.apple.mpegurl")
        }
        _ = try channel.finish()
        await fixture.stop()
    }

    @Test func aPartCarriesItsPublicationInstantAndIsBuiltOnce() async throws {
        let fixture = try await OriginFixture()
        let epoch = try await fixture.epoch()
        let fastPath = Self.fastPath(fixture)
        var heads: [HTTPResponse] = []
        for _ in 0..<2 {
            let channel = EmbeddedChannel(handler: LiveFastPathHandler(fastPath))
            try channel.writeInbound(Self.get("/live/demo/\(epoch)/video/\(PublishedRendition.firstMSN).0.m4s"))
            if case .head(let head) = try Self.written(channel).first { heads.append(head) }
            _ = try channel.finish()
        }
        #expect(heads.count == 2)
        #expect(heads.first?.status == .ok && heads.first?.headerFields[.contentType] == "video/mp4")
        #expect(heads.first?.headerFields[.cacheControl]?.hasSuffix("immutable") == true)
        // Built once for the part: the second viewer gets the very same published instant.
        let published = HTTPField.Name("X-Sluice-Published")!
        #expect(heads.first?.headerFields[published] != nil)
        #expect(heads.first?.headerFields[published] == heads.last?.headerFields[published])
        await fixture.stop()
    }
}

extension OriginAccess {
    /// Viewer tokens on.
    static var withViewerSecret: OriginAccess {
        var a = OriginAccess()
        a.viewerSecret = "s"
        return a
    }
}
