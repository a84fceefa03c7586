import LLHLSPackager
import MediaCore
import Synchronization
import Testing

@testable import LLHLSPackager

/// Blocking playlist reload and preload-hinted parts through `LLHLSStream` (checklist B1–B6, PH1, PH2).
@Suite("LLHLSStream blocking requests")
struct LLHLSStreamBlockingTests {
    static let m0 = PublishedRendition.firstMSN

    /// A stream with 7 s published (three complete segments, HOLD-BACK); returns it and the next 3 s of frames.
    static func stream() throws -> (LLHLSStream, [MediaFrame]) {
        let stream = LLHLSStream(key: Fixtures.key, epoch: Fixtures.epoch, config: LLHLSConfiguration())
        let d = try Fixtures.description()
        let frames = Fixtures.av(seconds: 10)
        let split = frames.firstIndex { $0.kind == .video && $0.dts.seconds >= 7 }!
        stream.mutate {
            $0.beginSession(now: .now) + $0.apply(d, now: .now) + $0.feed(frames[..<split])
        }
        return (stream, Array(frames[split...]))
    }

    static func hint(_ s: LLHLSStream) -> (msn: Int, part: Int) {
        s.state.withLock { $0.rendition(.video).nextPartPosition }
    }

    /// Waits until `n` requests are blocked; the deadline only bounds a failing run (a busy 2-core box is slow).
    static func waitForBlocked(_ s: LLHLSStream, _ n: Int = 1) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while s.blockedRequests < n && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        #expect(s.blockedRequests == n)
    }

    /// True once part `p` (or anything later) of the video rendition is published.
    static func reached(_ p: (msn: Int, part: Int)) -> @Sendable (LLHLSStreamState) -> Bool {
        { s in
            guard let last = s.rendition(.video).lastPart else { return false }
            return last.msn > p.msn || (last.msn == p.msn && last.part >= p.part)
        }
    }

    /// Feeds frames one by one until `done` says stop, so the state a woken request renders is exactly that one.
    static func feed(
        _ s: LLHLSStream,
        _ frames: [MediaFrame],
        until done: @Sendable (LLHLSStreamState) -> Bool
    ) async throws {
        for f in frames {
            s.mutate { $0.apply(f, now: .now) }
            if s.state.withLock({ done($0) }) { return }
        }
        Issue.record("the frames ran out before the condition held")
    }

    @Test func blockedPlaylistRequestReturnsOnceTheNextPartIsAppended() async throws {
        let (stream, rest) = try Self.stream()
        let next = Self.hint(stream)
        async let response = stream.mediaPlaylist(.video, request: PlaylistRequest(msn: next.msn, part: next.part))
        try await Self.waitForBlocked(stream)
        try await Self.feed(stream, rest, until: Self.reached(next))
        let r = await response
        #expect(r.status == 200)
        #expect(r.contentType == "application/vnd.apple.mpegurl")
        #expect(r.maxAge == 12)
        let text = String(decoding: r.body, as: UTF8.self)
        #expect(text.contains("URI=\"ep/video/\(next.msn).\(next.part).m4s\""))
        #expect(text.contains("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"ep/video/\(next.msn).\(next.part + 1).m4s\""))
        #expect(stream.blockedRequests == 0)
    }

    /// A router request parks like the fast path's; a caller that goes away gets its time-out answer at once and
    /// leaves nothing parked.
    @Test func aCancelledBlockedRequestAnswersAtOnceAndLeavesNothingParked() async throws {
        let (stream, _) = try Self.stream()
        let next = Self.hint(stream)
        let request = PlaylistRequest(msn: next.msn, part: next.part)
        let waiting = Task { await stream.mediaPlaylist(.video, request: request) }
        try await Self.waitForBlocked(stream)
        #expect(stream.parkedRequests == 1)
        let cancelled = ContinuousClock.now
        waiting.cancel()
        let r = await waiting.value
        #expect(r.status == 503 && r.maxAge == 0)
        #expect(ContinuousClock.now - cancelled < .seconds(1))
        #expect(stream.blockedRequests == 0)
    }

    @Test func blockedMSNRequestWaitsForTheWholeSegment() async throws {
        let (stream, rest) = try Self.stream()
        let open = Self.hint(stream).msn
        async let response = stream.mediaPlaylist(.video, request: PlaylistRequest(msn: open))
        try await Self.waitForBlocked(stream)
        try await Self.feed(stream, rest) { ($0.rendition(.video).lastCompleteMSN ?? -1) >= open }
        let r = await response
        #expect(r.status == 200)
        #expect(String(decoding: r.body, as: UTF8.self).contains("#EXTINF:2.00000,\nep/video/\(open).m4s\n"))
    }

    @Test func requestThatIsNeverSatisfiedTimesOutWith503AfterAboutThreePartTargets() async throws {
        let (stream, _) = try Self.stream()
        let next = Self.hint(stream)
        let start = ContinuousClock.now
        let r = await stream.mediaPlaylist(.video, request: PlaylistRequest(msn: next.msn, part: next.part))
        let waited = ContinuousClock.now - start
        #expect(r.status == 503)
        // Late, not missing: an edge must not keep it (no-cache) and answer it to the viewers who ask next.
        #expect(r.maxAge == 0)
        // It waited (3 × PART-TARGET = 0.603 s; BlockDecisionTests pins the hold). No upper bound: on a busy 2-core box
        // the timer itself may fire seconds late.
        #expect(waited >= .milliseconds(550), "waited \(waited)")
    }

    @Test func nonBlockingRequestAnswersAtOnceWithShortCaching() async throws {
        let (stream, _) = try Self.stream()
        let r = await stream.mediaPlaylist(.video, request: PlaylistRequest())
        #expect(r.status == 200)
        #expect(r.maxAge == 1 && !r.sharedCachesOnly)
        let bad = await stream.mediaPlaylist(.video, request: PlaylistRequest(msn: 99))
        #expect(bad.status == 400)
        // Short: the same URL becomes valid a few segments later (FanOutTests).
        #expect(bad.maxAge == 1)
    }

    /// At TD 1, TD/2 rounds up to a whole second: edges may keep a non-blocking playlist that long, browsers not at
    /// all (Chromium's native player reloading a browser-kept copy missed a whole segment per reload and stalled).
    @Test func nonBlockingPlaylistOfOneSecondSegmentsIsKeptByEdgesOnly() async throws {
        let stream = LLHLSStream(key: Fixtures.key, epoch: Fixtures.epoch, config: LLHLSConfiguration())
        let d = try Fixtures.description()
        let frames = Fixtures.av(seconds: 5, gop: 30)
        stream.mutate { $0.beginSession(now: .now) + $0.apply(d, now: .now) + $0.feed(frames) }
        #expect(stream.targetDuration == 1)
        let r = await stream.mediaPlaylist(.video, request: PlaylistRequest())
        #expect(r.status == 200 && r.maxAge == 1 && r.sharedCachesOnly)
        let msn = try #require(stream.summary().lastMSN)
        let blocking = await stream.mediaPlaylist(.video, request: PlaylistRequest(msn: msn - 1))
        #expect(blocking.status == 200 && blocking.maxAge == 6 && !blocking.sharedCachesOnly)
    }

    @Test func deltaRequestSkipsOldSegments() async throws {
        let stream = LLHLSStream(key: Fixtures.key, epoch: Fixtures.epoch, config: LLHLSConfiguration())
        let d = try Fixtures.description()
        stream.mutate {
            $0.beginSession(now: .now) + $0.apply(d, now: .now) + $0.feed(Fixtures.av(seconds: 19))
        }
        let r = await stream.mediaPlaylist(.video, request: PlaylistRequest(skip: true))
        let text = String(decoding: r.body, as: UTF8.self)
        // Nine 2 s segments and an open one: the first three end more than 12 s before the end (§6.2.5.1).
        #expect(text.contains("#EXT-X-VERSION:9\n"))
        #expect(
            text.contains(
                "#EXT-X-MEDIA-SEQUENCE:\(Self.m0)\n#EXT-X-DISCONTINUITY-SEQUENCE:0\n#EXT-X-SKIP:SKIPPED-SEGMENTS=3\n"
            )
        )
        #expect(!text.contains("ep/video/\(Self.m0 + 2).m4s"))
        #expect(text.contains("ep/video/\(Self.m0 + 3).m4s"))
    }

    @Test func blockingDeltaRequestCombinesBothDirectives() async throws {
        let stream = LLHLSStream(key: Fixtures.key, epoch: Fixtures.epoch, config: LLHLSConfiguration())
        let d = try Fixtures.description()
        let frames = Fixtures.av(seconds: 22)
        let split = frames.firstIndex { $0.kind == .video && $0.dts.seconds >= 19 }!
        stream.mutate {
            $0.beginSession(now: .now) + $0.apply(d, now: .now) + $0.feed(frames[..<split])
        }
        let next = Self.hint(stream)
        async let response = stream.mediaPlaylist(
            .video,
            request: PlaylistRequest(msn: next.msn, part: next.part, skip: true)
        )
        try await Self.waitForBlocked(stream)
        try await Self.feed(stream, Array(frames[split...]), until: Self.reached(next))
        let text = String(decoding: await response.body, as: UTF8.self)
        #expect(text.contains("#EXT-X-SKIP:SKIPPED-SEGMENTS=3\n"))
        #expect(text.contains("URI=\"ep/video/\(next.msn).\(next.part).m4s\""))
    }

    @Test func preloadHintedPartBlocksThenReturnsExactlyThePartsBytes() async throws {
        let (stream, rest) = try Self.stream()
        let next = Self.hint(stream)
        async let response = stream.media(epoch: Fixtures.epoch, kind: .video, file: "\(next.msn).\(next.part).m4s")
        try await Self.waitForBlocked(stream)
        try await Self.feed(stream, rest, until: Self.reached(next))
        let r = await response
        let part = stream.state.withLock { s in
            s.rendition(.video).segments.first { $0.msn == next.msn }?.parts[next.part].bytes
        }
        #expect(r.status == 200)
        #expect(r.contentType == "video/mp4")
        #expect(r.body == part)
        #expect(r.maxAge == 12)
    }

    @Test func unhintedFuturePartIsNotFound() async throws {
        let (stream, _) = try Self.stream()
        let next = Self.hint(stream)
        let r = await stream.media(epoch: Fixtures.epoch, kind: .video, file: "\(next.msn).\(next.part + 1).m4s")
        // Not blocked: a blocked media request would end with 503 at its deadline, not 404.
        #expect(r.status == 404)
        #expect(await stream.media(epoch: Fixtures.epoch, kind: .video, file: "\(next.msn + 1).0.m4s").status == 404)
    }

    @Test func wrongEpochIsNotFoundEvenForPublishedParts() async throws {
        let (stream, _) = try Self.stream()
        #expect(await stream.media(epoch: Fixtures.epoch, kind: .video, file: "\(Self.m0).0.m4s").status == 200)
        #expect(await stream.media(epoch: "other", kind: .video, file: "\(Self.m0).0.m4s").status == 404)
        #expect(await stream.media(epoch: "other", kind: .video, file: "init-0.mp4").status == 404)
    }

    @Test func segmentsInitSectionsAndBadNamesResolveAsExpected() async throws {
        let (stream, _) = try Self.stream()
        let open = Self.hint(stream).msn
        let segment = await stream.media(epoch: Fixtures.epoch, kind: .video, file: "\(Self.m0).m4s")
        let parts = stream.state.withLock { $0.rendition(.video).segments[0].parts.flatMap(\.bytes) }
        // F1: a segment is the byte-for-byte concatenation of its parts.
        #expect(segment.status == 200 && segment.body == parts)
        #expect(await stream.media(epoch: Fixtures.epoch, kind: .video, file: "\(open).m4s").status == 404)
        let initAudio = await stream.media(epoch: Fixtures.epoch, kind: .audio, file: "init-0.mp4")
        #expect(initAudio.status == 200 && initAudio.contentType == "audio/mp4")
        for bad in ["init-1.mp4", "x.m4s", "1.2.3.m4s", "-1.m4s", "0.-1.m4s", "0.m4", "init-.mp4"] {
            #expect(await stream.media(epoch: Fixtures.epoch, kind: .video, file: bad).status == 404, "\(bad)")
        }
    }

    @Test func hintedPartRequestIsReleasedWith404WhenTheStreamEndsWithoutIt() async throws {
        let (stream, _) = try Self.stream()
        stream.mutate { $0.publisherLeft(now: .now) }
        // Everything is flushed; the hint now names part 0 of a segment that will never come (PH2).
        let next = Self.hint(stream)
        #expect(next.part == 0)
        async let response = stream.media(epoch: Fixtures.epoch, kind: .video, file: "\(next.msn).0.m4s")
        try await Self.waitForBlocked(stream)
        stream.mutate { $0.end(now: .now) }
        // Woken by ENDLIST itself (the signal drops its waiters as it fires), not by its 6 s deadline.
        #expect(stream.blockedRequests == 0)
        let r = await response
        #expect(r.status == 404)
    }

    /// The multivariant playlist waits for the tracks and the first complete segment of every rendition (fast start).
    @Test func multivariantWaitsForTheDescriptionAndFirstSegments() async throws {
        let stream = LLHLSStream(key: Fixtures.key, epoch: Fixtures.epoch, config: LLHLSConfiguration())
        let d = try Fixtures.description()
        // Answered as soon as the segments are there; the long wait only keeps a busy box from timing it out.
        async let response = stream.multivariantPlaylist(maxWait: .seconds(30))
        try await Self.waitForBlocked(stream)
        stream.mutate {
            $0.beginSession(now: .now) + $0.apply(d, now: .now)
        }
        // Tracks alone do not release it: a second request with a short wait times out (503) meanwhile.
        #expect(await stream.multivariantPlaylist(maxWait: .milliseconds(50)).status == 503)
        // The first is still waiting (it re-registers after each 100 ms re-check, so wait for it).
        try await Self.waitForBlocked(stream)
        stream.mutate { s in s.feed(Fixtures.av(seconds: 7)) }
        let r = await response
        #expect(r.status == 200)
        #expect(String(decoding: r.body, as: UTF8.self).contains("CODECS=\"avc1.64001e,mp4a.40.2\""))
        let empty = LLHLSStream(key: Fixtures.key, epoch: Fixtures.epoch, config: LLHLSConfiguration())
        #expect(await empty.multivariantPlaylist(maxWait: .milliseconds(50)).status == 503)
    }
}
