import HTTPOrigin
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import MediaCore
import NIOCore
import StreamHub
import Testing

@testable import LLHLSPackager

/// The origin's routes in-process, through Hummingbird's router test client (checklist "HTTP delivery", B3, PH2).
@Suite("Origin routes")
struct OriginRoutesTests {
    static let allowOrigin = HTTPField.Name("Access-Control-Allow-Origin")!
    static let exposeHeaders = HTTPField.Name("Access-Control-Expose-Headers")!
    static let allowMethods = HTTPField.Name("Access-Control-Allow-Methods")!

    /// Runs `body` against a router over a packaged demo stream.
    static func withOrigin(_ body: @Sendable (OriginFixture, any TestClientProtocol) async throws -> Void) async throws
    {
        let fixture = try await OriginFixture()
        let app = Application(router: OriginRoutes.router(packager: fixture.packager))
        do {
            try await app.test(.router) { client in try await body(fixture, client) }
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }

    /// CORS headers every resource carries (hls.js#3680).
    static func expectCORS(_ r: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.headers[allowOrigin] == "*", sourceLocation: sourceLocation)
        #expect(r.headers[exposeHeaders] == "Age, X-Sluice-Published", sourceLocation: sourceLocation)
    }

    @Test func healthzAnswers200() async throws {
        let app = Application(
            router: OriginRoutes.router(packager: LLHLSPackager(hub: StreamHub(), logger: Logger(label: "t")))
        )
        try await app.test(.router) { client in
            let r = try await client.execute(uri: "/healthz", method: .get)
            #expect(r.status == .ok)
            #expect(String(buffer: r.body) == "ok\n")
        }
    }

    @Test func unknownStreamIs404() async throws {
        let app = Application(
            router: OriginRoutes.router(packager: LLHLSPackager(hub: StreamHub(), logger: Logger(label: "t")))
        )
        try await app.test(.router) { client in
            for uri in [
                "/live/nosuch/index.m3u8", "/live/nosuch/video.m3u8", "/live/nosuch/e/video/init-0.mp4",
                "/live/bad%20key/video.m3u8",
            ] {
                let r = try await client.execute(uri: uri, method: .get)
                #expect(r.status == .notFound, "\(uri)")
                Self.expectCORS(r)
            }
        }
    }

    @Test func mediaPlaylistHasPlaylistTypeCORSAndShortCachingWhenNotBlocking() async throws {
        try await Self.withOrigin { _, client in
            let r = try await client.execute(uri: "/live/demo/video.m3u8", method: .get)
            #expect(r.status == .ok)
            #expect(r.headers[.contentType] == "application/vnd.apple.mpegurl")
            // Non-blocking 200: TD / 2 = 1 s (App. B.1).
            #expect(r.headers[.cacheControl] == "public, max-age=1")
            Self.expectCORS(r)
            let text = String(buffer: r.body)
            #expect(text.hasPrefix("#EXTM3U\n"))
            #expect(text.contains("#EXT-X-PRELOAD-HINT:TYPE=PART"))
        }
    }

    @Test func blockingPlaylistRequestIsCachedForSixTargetDurations() async throws {
        try await Self.withOrigin { fixture, client in
            let stream = try requireStream(fixture.packager.stream(for: OriginFixture.key))
            let msn = try #require(stream.summary().lastMSN)
            let r = try await client.execute(uri: "/live/demo/video.m3u8?_HLS_part=0&_HLS_msn=\(msn)", method: .get)
            #expect(r.status == .ok)
            #expect(r.headers[.cacheControl] == "public, max-age=12")
            #expect(r.headers[.contentType] == "application/vnd.apple.mpegurl")
            Self.expectCORS(r)
        }
    }

    @Test func partWithoutMSNIs400() async throws {
        try await Self.withOrigin { _, client in
            let r = try await client.execute(uri: "/live/demo/video.m3u8?_HLS_part=1", method: .get)
            #expect(r.status == .badRequest)
            Self.expectCORS(r)
            let far = try await client.execute(uri: "/live/demo/audio.m3u8?_HLS_msn=9999", method: .get)
            #expect(far.status == .badRequest)
            // An edge keeps it a second at most: that URL becomes valid later.
            #expect(far.headers[.cacheControl] == "public, max-age=1")
        }
    }

    @Test func multivariantPlaylistListsTheVariantAndItsAudioGroup() async throws {
        try await Self.withOrigin { _, client in
            let r = try await client.execute(uri: "/live/demo/index.m3u8", method: .get)
            #expect(r.status == .ok)
            #expect(r.headers[.contentType] == "application/vnd.apple.mpegurl")
            let text = String(buffer: r.body)
            #expect(text.contains("CODECS=\"avc1.64001e,mp4a.40.2\",RESOLUTION=640x360"))
            #expect(text.contains("URI=\"audio.m3u8\""))
            #expect(text.hasSuffix("video.m3u8\n"))
        }
    }

    @Test func initSegmentPartAndSegmentAreServedAsMP4() async throws {
        try await Self.withOrigin { fixture, client in
            let epoch = try await fixture.epoch()
            let video = try await client.execute(uri: "/live/demo/\(epoch)/video/init-0.mp4", method: .get)
            #expect(video.status == .ok)
            #expect(video.headers[.contentType] == "video/mp4")
            Self.expectCORS(video)
            #expect(Array(buffer: video.body)[4..<8] == Array("ftyp".utf8)[...])
            let audio = try await client.execute(uri: "/live/demo/\(epoch)/audio/init-0.mp4", method: .get)
            #expect(audio.headers[.contentType] == "audio/mp4")
            let msn = PublishedRendition.firstMSN
            let part = try await client.execute(uri: "/live/demo/\(epoch)/video/\(msn).0.m4s", method: .get)
            #expect(part.status == .ok)
            #expect(Array(buffer: part.body)[4..<8] == Array("moof".utf8)[...])
            let segment = try await client.execute(uri: "/live/demo/\(epoch)/video/\(msn).m4s", method: .get)
            #expect(segment.status == .ok)
            #expect(segment.headers[.cacheControl] == "public, max-age=12, immutable")
            #expect(part.headers[.cacheControl] == "public, max-age=12, immutable")
            #expect(Array(buffer: segment.body).starts(with: Array(buffer: part.body)))
        }
    }

    @Test func aPartStatesWhenTheOriginListedIt() async throws {
        try await Self.withOrigin { fixture, client in
            let epoch = try await fixture.epoch()
            let msn = PublishedRendition.firstMSN
            let stream = try #require(fixture.packager.stream(for: .init("demo")!))
            let listed = try #require(stream.published(rendition: "video", file: .part(msn, 0)))
            let before = ContinuousClock.now
            let now = Double(WallTime.now().nanosecondsSince1970) / 1e9
            let part = try await client.execute(uri: "/live/demo/\(epoch)/video/\(msn).0.m4s", method: .get)
            let stated = try #require(part.headers[.init("X-Sluice-Published")!].flatMap(Double.init))
            // The stated instant is the listing instant on the wall clock: as far before now as `listed` was.
            let (seconds, atto) = (before - listed).components
            let age = Double(seconds) + Double(atto) / 1e18
            #expect(abs(now - age - stated) < 0.05, "stated \(stated), expected about \(now - age)")
            // Segments, playlists and init sections state nothing.
            let segment = try await client.execute(uri: "/live/demo/\(epoch)/video/\(msn).m4s", method: .get)
            #expect(segment.headers[.init("X-Sluice-Published")!] == nil)
        }
    }

    @Test func unknownMediaIs404() async throws {
        try await Self.withOrigin { fixture, client in
            let epoch = try await fixture.epoch()
            for uri in [
                "/live/demo/\(epoch)/subtitles/init-0.mp4", "/live/demo/other/video/init-0.mp4",
                "/live/demo/\(epoch)/video/9999.0.m4s",
                "/live/demo/\(epoch)/video/nonsense", "/live/demo/nothing.m3u8",
            ] {
                let r = try await client.execute(uri: uri, method: .get)
                #expect(r.status == .notFound, "\(uri)")
                Self.expectCORS(r)
            }
        }
    }

    @Test func responsesAreCacheableByAnEdgeAndCarryNothingPerViewer() async throws {
        try await Self.withOrigin { fixture, client in
            let epoch = try await fixture.epoch()
            let playlist = try await client.execute(uri: "/live/demo/video.m3u8", method: .get)
            let text = String(buffer: playlist.body)
            // Media URIs: the session epoch in the path, no query string, so one cache entry serves everyone.
            let uris = text.split(separator: "\n").flatMap { line in
                line.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
                    + (line.hasPrefix("#") ? [] : [line])
            }.filter { $0.hasSuffix(".m4s") || $0.hasSuffix(".mp4") || $0.contains("?") }
            #expect(!uris.isEmpty)
            for uri in uris {
                #expect(uri.hasPrefix("\(epoch)/") && !uri.contains("?"), "\(uri)")
            }
            let part = try await client.execute(
                uri: "/live/demo/\(epoch)/video/\(PublishedRendition.firstMSN).0.m4s",
                method: .get
            )
            for r in [playlist, part] {
                #expect(r.headers[.setCookie] == nil)
                #expect(r.headers[.vary] == nil)
            }
            // A part past the preload hint will exist soon: the 404 must not be kept by an edge.
            let ahead = try await client.execute(uri: "/live/demo/\(epoch)/video/9999.0.m4s", method: .get)
            #expect(ahead.status == .notFound && ahead.headers[.cacheControl] == "no-cache")
        }
    }

    @Test func optionsPreflightAnswers204WithCORS() async throws {
        let app = Application(
            router: OriginRoutes.router(packager: LLHLSPackager(hub: StreamHub(), logger: Logger(label: "t")))
        )
        try await app.test(.router) { client in
            for uri in ["/live/demo/index.m3u8", "/live/demo/video.m3u8", "/live/demo/e/video/1.0.m4s", "/healthz"] {
                let r = try await client.execute(uri: uri, method: .options)
                do {
                    #expect(r.status == .noContent, "\(uri)")
                    Self.expectCORS(r)
                    #expect(r.headers[Self.allowMethods]?.contains("GET") == true, "\(uri)")
                }
            }
            // The catch-all does answer paths no GET route claims.
            let other = try await client.execute(uri: "/elsewhere/x", method: .options)
            #expect(other.status == .noContent)
            Self.expectCORS(other)
        }
    }

    @Test func streamsAPIListsTheStreamAsJSON() async throws {
        try await Self.withOrigin { _, client in
            let r = try await client.execute(uri: "/api/streams", method: .get)
            #expect(r.status == .ok)
            #expect(r.headers[.contentType] == "application/json")
            let text = String(buffer: r.body)
            #expect(text.hasPrefix("[{") && text.contains("\"key\":\"demo\"") && text.contains("\"state\":\"live\""))
        }
    }
}
