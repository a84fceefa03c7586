import LLHLSPackager
import MediaCore
import NIOCore
import Synchronization
import Testing

@testable import LLHLSPackager

/// One node serving many viewers: playlists rendered once per change, part bytes shared, caching per checklist.
@Suite("Fan-out and caching")
struct FanOutTests {
    /// Where a buffer's bytes live: equal for two responses means one storage, no copy per viewer.
    static func address(_ b: ByteBuffer) -> UInt? {
        b.withUnsafeReadableBytes { $0.baseAddress.map { UInt(bitPattern: $0) } }
    }

    @Test func identicalPlaylistRequestsShareOneRenderAndOneStorage() async throws {
        let (stream, _) = try LLHLSStreamBlockingTests.stream()
        let last = try #require(stream.state.withLock { $0.rendition(.video).lastPart })
        let request = PlaylistRequest(msn: last.msn, part: last.part)
        let before = stream.playlistRenders
        let a = await stream.mediaPlaylist(.video, request: request)
        let b = await stream.mediaPlaylist(.video, request: request)
        #expect(a.status == 200 && b.status == 200)
        #expect(a.body == b.body)
        #expect(Self.address(a.payload) == Self.address(b.payload))
        #expect(stream.playlistRenders == before + 1)
        // A non-blocking request for the same rendition at the same version is the same playlist.
        let plain = await stream.mediaPlaylist(.video, request: PlaylistRequest())
        #expect(plain.body == a.body && stream.playlistRenders == before + 1)
        // A delta update is another body, rendered once too.
        _ = await stream.mediaPlaylist(.video, request: PlaylistRequest(msn: last.msn, part: last.part, skip: true))
        _ = await stream.mediaPlaylist(.video, request: PlaylistRequest(skip: true))
        #expect(stream.playlistRenders == before + 2)
    }

    @Test func viewersWokenByOnePartGetOneRender() async throws {
        let (stream, rest) = try LLHLSStreamBlockingTests.stream()
        let next = LLHLSStreamBlockingTests.hint(stream)
        let request = PlaylistRequest(msn: next.msn, part: next.part)
        let viewers = 20
        let before = stream.playlistRenders
        try await withThrowingTaskGroup(of: HLSResponse.self) { group in
            for _ in 0..<viewers { group.addTask { await stream.mediaPlaylist(.video, request: request) } }
            try await LLHLSStreamBlockingTests.waitForBlocked(stream, viewers)
            // One frame at a time until the hinted part is listed; each publication is one version.
            var fed = 0
            let reached = LLHLSStreamBlockingTests.reached(next)
            for f in rest where !stream.state.withLock({ reached($0) }) {
                stream.mutate { $0.apply(f, now: .now) }
                fed += 1
            }
            var bodies: Set<[UInt8]> = []
            var addresses: Set<UInt?> = []
            for try await r in group {
                #expect(r.status == 200)
                bodies.insert(r.body)
                addresses.insert(Self.address(r.payload))
            }
            #expect(bodies.count == 1 && addresses.count == 1)
            #expect(fed > 0)
        }
        // Every waiter re-checks on each change, but the playlist is rendered once for all of them.
        #expect(stream.playlistRenders == before + 1)
    }

    @Test func aNewPartInvalidatesTheRenderedPlaylist() async throws {
        let (stream, rest) = try LLHLSStreamBlockingTests.stream()
        let first = await stream.mediaPlaylist(.video, request: PlaylistRequest())
        let next = LLHLSStreamBlockingTests.hint(stream)
        try await LLHLSStreamBlockingTests.feed(stream, rest, until: LLHLSStreamBlockingTests.reached(next))
        let second = await stream.mediaPlaylist(.video, request: PlaylistRequest())
        #expect(first.body != second.body)
        #expect(String(decoding: second.body, as: UTF8.self).contains("ep/video/\(next.msn).\(next.part).m4s"))
    }

    @Test func everyViewerOfAPartSharesItsBytes() async throws {
        let (stream, _) = try LLHLSStreamBlockingTests.stream()
        let m0 = PublishedRendition.firstMSN
        let a = await stream.media(epoch: Fixtures.epoch, kind: .video, file: "\(m0).0.m4s")
        let b = await stream.media(epoch: Fixtures.epoch, kind: .video, file: "\(m0).0.m4s")
        #expect(a.status == 200 && a.payload.readableBytes > 0)
        #expect(Self.address(a.payload) == Self.address(b.payload))
        // Complete segments are joined once, not per request.
        let s1 = await stream.media(epoch: Fixtures.epoch, kind: .video, file: "\(m0).m4s")
        let s2 = await stream.media(epoch: Fixtures.epoch, kind: .video, file: "\(m0).m4s")
        #expect(s1.status == 200 && Self.address(s1.payload) == Self.address(s2.payload))
    }

    @Test func mediaIsImmutableAndErrorsThatMayBecomeValidAreShortOrUncached() async throws {
        let (stream, _) = try LLHLSStreamBlockingTests.stream()
        let m0 = PublishedRendition.firstMSN
        let part = await stream.media(epoch: Fixtures.epoch, kind: .video, file: "\(m0).0.m4s")
        #expect(part.maxAge == 12 && part.immutable)
        let initSection = await stream.media(epoch: Fixtures.epoch, kind: .video, file: "init-0.mp4")
        #expect(initSection.maxAge == 12 && initSection.immutable)
        // Past the preload hint: published a part or two later, so an edge must not keep the 404.
        let hint = LLHLSStreamBlockingTests.hint(stream)
        let ahead = await stream.media(epoch: Fixtures.epoch, kind: .video, file: "\(hint.msn + 1).0.m4s")
        #expect(ahead.status == 404 && ahead.maxAge == 0)
        // Gone or never existing: a short negative cache is fine.
        let old = await stream.media(epoch: "other", kind: .video, file: "\(m0).0.m4s")
        #expect(old.status == 404 && old.maxAge == 1)
        // Too far ahead is valid a few parts later: short, not App. B.1's 4 x TD.
        let far = await stream.mediaPlaylist(.video, request: PlaylistRequest(msn: hint.msn + 3))
        #expect(far.status == 400 && far.maxAge == 1)
        // Blocking 200s are immutable for their URL but not marked so: the checklist's 6 x TD is the contract.
        let blocking = await stream.mediaPlaylist(.video, request: PlaylistRequest(msn: m0, part: 0))
        #expect(blocking.status == 200 && blocking.maxAge == 12 && !blocking.immutable)
    }

    @Test func partsRecordWhenTheyWerePublished() async throws {
        let (stream, rest) = try LLHLSStreamBlockingTests.stream()
        let next = LLHLSStreamBlockingTests.hint(stream)
        #expect(stream.published(rendition: "video", file: .part(next.msn, next.part)) == nil)
        let before = ContinuousClock.now
        try await LLHLSStreamBlockingTests.feed(stream, rest, until: LLHLSStreamBlockingTests.reached(next))
        let published = try #require(stream.published(rendition: "video", file: .part(next.msn, next.part)))
        #expect(published >= before && published <= ContinuousClock.now)
        // The answer carries the same instant, so the origin needs no second look for its header and deliver hop.
        let part = MediaFileName.part(next.msn, next.part)
        let answer = await stream.media(epoch: stream.epoch, rendition: "video", file: part.description)
        #expect(answer.status == 200 && answer.published == published)
        let initSection = await stream.media(epoch: stream.epoch, rendition: "video", file: "init-0.mp4")
        #expect(initSection.status == 200 && initSection.published == nil)
    }
}
