import MediaCore
import Testing

@testable import LLHLSPackager

/// RFC 8216bis §6.2.5.2 blocking reload decided on a packaged stream (checklist B1, B2, B4, B7).
@Suite("LLHLSStreamState.decide")
struct BlockDecisionTests {
    /// The first MSN a stream hands out.
    static let m0 = PublishedRendition.firstMSN

    /// 5 s of 30 fps A/V with 2 s GOPs: segments m0 and m0+1 complete, m0+2 open with parts 0…3.
    static func fiveSeconds() throws -> LLHLSStreamState {
        var s = Fixtures.state(try Fixtures.description())
        s.feed(Fixtures.av(seconds: 5))
        let r = s.rendition(.video)
        #expect(r.lastCompleteMSN == m0 + 1)
        #expect(r.lastPart?.msn == m0 + 2 && r.lastPart?.part == 3)
        return s
    }

    /// A request for segment m0 + `segment` (and a part of it).
    static func request(_ segment: Int?, _ part: Int? = nil) -> PlaylistRequest {
        PlaylistRequest(msn: segment.map { m0 + $0 }, part: part)
    }

    static func isWait(_ d: BlockDecision) -> Bool { if case .wait = d { true } else { false } }
    static func isBad(_ d: BlockDecision) -> Bool { if case .badRequest = d { true } else { false } }

    @Test func msnAloneWaitsForACompleteSegmentNotItsParts() throws {
        let s = try Self.fiveSeconds()
        #expect(s.decide(.video, Self.request(0)) == .ready)
        #expect(s.decide(.video, Self.request(1)) == .ready)
        // Segment 2 has four parts but is not complete (B1).
        #expect(Self.isWait(s.decide(.video, Self.request(2))))
        #expect(Self.isWait(s.decide(.video, Self.request(3))))
    }

    @Test func msnWaitIsCappedAtThreeTargetDurations() throws {
        let s = try Self.fiveSeconds()
        #expect(s.decide(.video, Self.request(2)) == .wait(until: .seconds(6)))
    }

    @Test func partRequestIsReadyOnceThatPartOrAnythingLaterExists() throws {
        let s = try Self.fiveSeconds()
        #expect(s.decide(.video, Self.request(2, 3)) == .ready)
        #expect(s.decide(.video, Self.request(2, 0)) == .ready)
        #expect(s.decide(.video, Self.request(0, 9)) == .ready)
        #expect(Self.isWait(s.decide(.video, Self.request(2, 4))))
        #expect(Self.isWait(s.decide(.video, Self.request(3, 0))))
    }

    @Test func partPastTheLastPartOfACompletedSegmentReadsAsTheNextSegment() throws {
        let s = try Self.fiveSeconds()
        // Segment 1 has ten parts (0…9): part 10 of it is part 0 of segment 2, which exists (B2).
        #expect(s.rendition(.video).segments.first { $0.msn == Self.m0 + 1 }?.parts.count == 10)
        #expect(s.decide(.video, Self.request(1, 10)) == .ready)
        #expect(s.decide(.video, Self.request(1, 12)) == .ready)
    }

    @Test func partPastTheLastPartOfTheNewestCompletedSegmentWaitsForTheNextSegment() throws {
        var s = try Self.fiveSeconds()
        s.publisherLeft(now: .now)
        let r = s.rendition(.video)
        let last = try #require(r.segments.last)
        #expect(last.complete && last.msn == Self.m0 + 2)
        #expect(Self.isWait(s.decide(.video, Self.request(2, last.parts.count))))
        #expect(s.decide(.video, Self.request(2, last.parts.count - 1)) == .ready)
    }

    @Test func partWaitOutlastsHlsJsOwnAbortByHalfAPart() throws {
        let s = try Self.fiveSeconds()
        guard case .wait(let hold) = s.decide(.video, Self.request(2, 4)) else {
            Issue.record("expected a wait")
            return
        }
        // hls.js aborts a blocking reload after max(3 × PT, 0.8 × TD) and retries it at once; a 503 waits 1 s.
        let abort = max(3 * 0.201, 0.8 * Double(s.targetDuration))
        #expect(abs(hold.secondsDouble - (abort + 0.201 / 2)) < 0.001)
        #expect(hold.secondsDouble < 3 * Double(s.targetDuration))
    }

    @Test func msnMoreThanTwoPastTheLastCompleteSegmentIsABadRequest() throws {
        let s = try Self.fiveSeconds()
        #expect(Self.isWait(s.decide(.video, Self.request(3))))
        #expect(Self.isBad(s.decide(.video, Self.request(4))))
        #expect(Self.isBad(s.decide(.video, Self.request(4, 0))))
    }

    @Test func partBeyondTheAdvancePartLimitIsABadRequest() throws {
        let s = try Self.fiveSeconds()
        // PART-TARGET 0.201 s: Advance Part Limit = 3 / 0.201 ≈ 14.9 → 15 parts (B4).
        #expect(Self.isWait(s.decide(.video, Self.request(2, 3 + 15))))
        #expect(Self.isBad(s.decide(.video, Self.request(2, 3 + 16))))
        #expect(Self.isBad(s.decide(.video, Self.request(3, 40))))
    }

    @Test func endedStreamIgnoresEveryDirective() throws {
        var s = try Self.fiveSeconds()
        s.end(now: .now)
        #expect(s.decide(.video, Self.request(999, 7)) == .ready)
        #expect(s.decide(.video, Self.request(999)) == .ready)
        #expect(s.decide(.audio, Self.request(3, 0)) == .ready)
    }

    @Test func requestWithoutDirectivesIsAnsweredOnceTheFirstSegmentIsComplete() throws {
        var s = Fixtures.state(try Fixtures.description())
        #expect(Self.isWait(s.decide(.video, PlaylistRequest())))
        // Parts alone are not enough: hls.js refuses a playlist without a whole segment (levelEmptyError).
        s.feed(Fixtures.av(seconds: 1.5))
        #expect(s.rendition(.video).lastPart != nil && s.rendition(.video).lastCompleteMSN == nil)
        #expect(Self.isWait(s.decide(.video, PlaylistRequest())))
        s.feed(Fixtures.av(seconds: 1, from: 1.5))
        #expect(s.rendition(.video).lastCompleteMSN == Self.m0)
        #expect(s.decide(.video, PlaylistRequest()) == .ready)
        #expect(s.decide(.video, PlaylistRequest(skip: true)) == .ready)
    }

    @Test func renditionThatDoesNotExistIsABadRequest() throws {
        let s = Fixtures.state(try Fixtures.description(audio: false))
        #expect(Self.isBad(s.decide(.audio, PlaylistRequest())))
    }
}
