import MediaCore
import Testing

@testable import StreamHub

/// One timeline across sources: a spliced-in source starts where the air ended, and no track goes back.
struct SpliceTimelineTests {
    static func video(_ ticks: Int64, key: Bool = false) -> MediaFrame {
        MediaFrame(kind: .video, dts: MediaTime(value: ticks, timescale: 90_000), isKeyframe: key, data: [1])
    }

    static func audio(_ samples: Int64) -> MediaFrame {
        MediaFrame(kind: .audio, dts: MediaTime(value: samples, timescale: 48_000), isKeyframe: true, data: [2])
    }

    static let aac = MediaTime(value: 1_024, timescale: 48_000)

    @Test func theFirstSourceKeepsItsTimesAndTheNextStartsWhereTheAirEnds() {
        var t = SpliceTimeline()
        let now = ContinuousClock.now
        for i in 0..<3 { _ = t.place(Self.video(Int64(i) * 3_000, key: i == 0), audioDuration: nil, now: now) }
        _ = t.place(Self.audio(0), audioDuration: Self.aac, now: now)
        #expect(t.end == MediaTime(value: 9_000, timescale: 90_000))
        // The next source's keyframe at its own 500 s lands at 0.1 s on the air.
        t.splice(sourceStart: MediaTime(value: 45_000_000, timescale: 90_000))
        let first = t.place(Self.video(45_000_000, key: true), audioDuration: nil, now: now)
        let sound = t.place(Self.audio(24_000_000), audioDuration: Self.aac, now: now)
        #expect(first.dts == MediaTime(value: 9_000, timescale: 90_000))
        #expect(sound.dts == MediaTime(value: 4_800, timescale: 48_000))
    }

    @Test func videoNeverGoesBackAcrossSplicesOfSourcesWithUnrelatedClocks() {
        var t = SpliceTimeline()
        let now = ContinuousClock.now
        var lastVideo = MediaTime(value: -1, timescale: 90_000)
        for session in 0..<4 {
            let base = Int64(session) * 7_777_777
            t.splice(sourceStart: MediaTime(value: base, timescale: 90_000))
            for i in 0..<10 {
                let v = t.place(Self.video(base + Int64(i) * 3_003, key: i == 0), audioDuration: nil, now: now)
                #expect(v.dts > lastVideo)
                lastVideo = v.dts
            }
        }
    }

    /// Silence carries the audio from its end to the video's, at most one frame past it; audio that reaches the video,
    /// or stopped more than `silenceLimit` before it, gets none.
    @Test(arguments: [(1, 4), (3, 2), (5, 0), (0, 0)])
    func silenceFillsTheAudioUpToTheVideosEnd(audioFrames: Int, expected: Int) {
        var t = SpliceTimeline()
        let now = ContinuousClock.now
        for i in 0..<3 { _ = t.place(Self.video(Int64(i) * 3_000, key: i == 0), audioDuration: nil, now: now) }
        for i in 0..<audioFrames { _ = t.place(Self.audio(Int64(i) * 1_024), audioDuration: Self.aac, now: now) }
        let filled = t.silenceToVideoEnd(Self.audio(0), length: Self.aac, now: now)
        #expect(filled.count == expected)
        #expect(filled.map(\.dts.value) == (0..<expected).map { Int64(audioFrames + $0) * 1_024 })
        if expected > 0 {
            // The next source starts where the air ends: on or past the video's end, within one audio frame.
            let end = t.end ?? .zero(timescale: 90_000)
            #expect(end >= MediaTime(value: 9_000, timescale: 90_000))
            #expect(end < MediaTime(value: 9_000 + 1_920, timescale: 90_000))
        }
    }

    @Test func audioThatStoppedLongBeforeTheVideoIsNotFilled() {
        var t = SpliceTimeline()
        let now = ContinuousClock.now
        _ = t.place(Self.audio(0), audioDuration: Self.aac, now: now)
        _ = t.place(Self.video(2 * 90_000, key: true), audioDuration: nil, now: now)
        #expect(t.silenceToVideoEnd(Self.audio(0), length: Self.aac, now: now).isEmpty)
    }
}
