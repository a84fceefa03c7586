import MediaCore
import Testing

@testable import LLHLSPackager

/// Another encoder's output on the same stream (a backup or the slate took the air: a new encoding sequence) is a
/// new timeline for players: a DISCONTINUITY and a new init section on every rendition. The segment before it stays
/// open until the new timeline's first part, so no playlist lists a finished segment with nothing after it (hls.js
/// appended the next timeline's media with the old init section when it saw one).
@Suite struct SpliceDiscontinuityTests {
    static func spliced(_ d: StreamDescription, _ sequence: Int) -> StreamDescription {
        StreamDescription(video: d.video, audio: d.audio, encodingSequence: sequence)
    }

    @Test func aNewEncodingSequenceKeepsTheSegmentOpenUntilTheNextTimelinesFirstPart() throws {
        let d = try Fixtures.description()
        var s = Fixtures.state(d)
        for f in Fixtures.av(seconds: 1.5, gop: 30) { s.apply(f, now: .now) }
        s.apply(Self.spliced(d, 1), now: .now)
        for name in ["video", "audio"] {
            let last = try #require(s.pipeline(named: name)?.rendition.segments.last)
            #expect(!last.complete, "\(name): the segment before the splice was listed as finished")
            #expect(s.pipeline(named: name)?.rendition.pendingDiscontinuity == true)
        }
        let before = try #require(s.video?.rendition.segments.last)
        for f in Fixtures.av(seconds: 0.5, from: 1.5, gop: 30) { s.apply(f, now: .now) }
        for name in ["video", "audio"] {
            let segments = try #require(s.pipeline(named: name)?.rendition.segments)
            let closed = try #require(segments.first { $0.msn == before.msn })
            #expect(closed.complete)
            let next = try #require(segments.first { $0.msn == before.msn + 1 })
            #expect(next.discontinuity && next.initIndex == closed.initIndex + 1, "\(name)")
        }
    }

    @Test func theSameEncodingSequenceAgainChangesNothing() throws {
        let d = try Fixtures.description()
        var s = Fixtures.state(d)
        for f in Fixtures.av(seconds: 1.5, gop: 30) { s.apply(f, now: .now) }
        let segments = s.video?.rendition.segments.count
        s.apply(Self.spliced(d, 0), now: .now)
        #expect(s.video?.rendition.pendingDiscontinuity == false)
        #expect(s.video?.rendition.segments.count == segments)
    }
}
