import MediaCore
import TestSupport
import Testing

@testable import LLHLSPackager

/// EXT-X-PROGRAM-DATE-TIME prints whole milliseconds; hls.js lines an audio playlist up with video by those dates, and
/// an audio segment dated after its media is skipped at the live edge until the next playlist (0.2 s of buffer lost).
@Suite("Program date-time rounding")
struct ProgramDateTimeRoundingTests {
    /// Anchor with a sub-millisecond part, so neither rendition's dates fall on whole milliseconds.
    static let anchor = WallTime(nanosecondsSince1970: 1_763_769_600_000_400_000)

    /// Stream time, video's printed ms and audio's printed ms past the anchor's whole second.
    static let table: [(MediaTime, Int64, Int64)] = [
        (MediaTime(value: 0, timescale: 90_000), 1, 0),  // 0.4 ms: video up to 1, audio down to 0
        (MediaTime(value: 90_090, timescale: 90_000), 1_002, 1_001),  // 1.001 s + 0.4 ms
        (MediaTime(value: 48_128, timescale: 48_000), 1_004, 1_003),  // 47 AAC frames: 1002.667 + 0.4 ms
        (MediaTime(value: 2_000, timescale: 1_000), 2_001, 2_000),
    ]

    @Test(arguments: 0..<table.count)
    func videoDatesRoundUpAndAudioDatesDown(_ i: Int) {
        var timeline = StreamTimeline()
        timeline.wallAnchor = Self.anchor
        let (t, video, audio) = Self.table[i]
        let second = Self.anchor.millisecondsSince1970
        let printed = { (kind: MediaKind) in
            timeline.programDateTime(at: t, fallback: Self.anchor, kind: kind).millisecondsSince1970 - second
        }
        #expect(printed(.video) == video)
        #expect(printed(.audio) == audio)
    }

    /// Whatever the times, printed audio minus printed video never exceeds the media's own difference (property).
    @Test func audioIsNeverDatedLaterAgainstVideoThanItsMedia() {
        var rng = SeededRandom(seed: 11)
        var timeline = StreamTimeline()
        for _ in 0..<2_000 {
            timeline.wallAnchor = WallTime(nanosecondsSince1970: Int64.random(in: 0...1_000_000_000_000, using: &rng))
            let v = MediaTime(value: Int64.random(in: 0...9_000_000, using: &rng), timescale: 90_000)
            let a = MediaTime(value: Int64.random(in: 0...4_800_000, using: &rng), timescale: 48_000)
            let pv = timeline.programDateTime(at: v, fallback: Self.anchor, kind: .video).millisecondsSince1970
            let pa = timeline.programDateTime(at: a, fallback: Self.anchor, kind: .audio).millisecondsSince1970
            let media = Double(a.value) / 48_000 - Double(v.value) / 90_000
            #expect(Double(pa - pv) / 1_000 <= media + 1e-9)
        }
    }
}
