import MediaCore
import Testing

@testable import LLHLSPackager

/// The aligner alone: which held parts it lists, and when a rung stops holding the others (`lagLimit`).
@Suite struct RungAlignerTests {
    static let t0 = ContinuousClock.now
    /// Three quarters of a 0.2 s part, as the stream passes it.
    static let tolerance = MediaTime(value: 13_500, timescale: 90_000)

    /// A 0.2 s part starting `start` tenths of a second in.
    static func part(at start: Int) -> MuxedPart {
        MuxedPart(
            startsSegment: false,
            startDTS: Int64(start) * 9_000,
            duration: 18_000,
            startsWithSync: false,
            bytes: [],
            ingested: []
        )
    }

    /// An aligner holding 0.2 s parts of `video` up to `videoEnd` and of `180p` up to `rungEnd` (seconds).
    static func holding(video videoEnd: Int, rung rungEnd: Int?) -> RungAligner {
        var a = RungAligner()
        for (name, end) in [("video", videoEnd), ("180p", rungEnd ?? 0)] {
            for start in stride(from: 0, to: end, by: 2) {
                a.hold(Self.part(at: start), name: name, timescale: 90_000, now: t0)
            }
        }
        return a
    }

    /// Releases with `video` and `180p` setting the pace and `trailing` (audio) listed behind them.
    static func release(
        _ a: inout RungAligner,
        trailing: Set<String> = [],
        at now: ContinuousClock.Instant = t0,
        force: Bool = false
    ) -> (ready: [HeldPart], events: [PackagerEvent]) {
        a.release(
            pacing: ["video", "180p"],
            rungs: ["180p"],
            trailing: trailing,
            tolerance: tolerance,
            now: now,
            force: force
        )
    }

    /// Video and rung produced up to (tenths of a second; nil: the rung has no part yet), video parts listed, events.
    static let cases: [(Int, Int?, Int, [PackagerEvent])] = [
        (10, 10, 5, []),
        (10, 4, 2, []),
        // Exactly `lagLimit` behind still holds the source.
        (14, 4, 2, []),
        (16, 4, 8, [.rungFellBehind("180p")]),
        // A rung without a part yet (its encoder is starting) holds nobody and is not reported behind.
        (10, nil, 5, []),
    ]

    @Test(arguments: 0..<cases.count)
    func listsWhatTheSlowestRenditionInStepReached(_ i: Int) {
        let (videoEnd, rungEnd, listed, events) = Self.cases[i]
        var a = Self.holding(video: videoEnd, rung: rungEnd)
        let out = Self.release(&a)
        #expect(out.ready.filter { $0.name == "video" }.count == listed)
        #expect(out.events == events)
    }

    @Test func aRungBackWithinAPartRejoinsThePace() {
        var a = Self.holding(video: 16, rung: 4)
        _ = Self.release(&a)
        for start in stride(from: 4, to: 16, by: 2) {
            a.hold(Self.part(at: start), name: "180p", timescale: 90_000, now: Self.t0)
        }
        let out = Self.release(&a)
        #expect(out.events == [.rungCaughtUp("180p")])
        #expect(a.lagging.isEmpty && a.held.isEmpty)
    }

    @Test func aPartWaitsAtMostTheAlignmentLimitAndAForcedReleaseListsAll() {
        var a = Self.holding(video: 10, rung: 2)
        let early = Self.release(&a)
        #expect(early.ready.map(\.name) == ["video", "180p"])
        let late = Self.t0 + RungAligner.alignmentLimit
        let waited = Self.release(&a, at: late)
        #expect(waited.ready.count == 4 && a.held.isEmpty)
        var b = Self.holding(video: 10, rung: 2)
        #expect(Self.release(&b, force: true).ready.count == 6)
    }

    /// A 9-frame AAC part (0.192 s) starting `frames` AAC frames in, in 48 kHz ticks.
    static func aacPart(at frames: Int64, count: Int64 = 9) -> MuxedPart {
        MuxedPart(
            startsSegment: false,
            startDTS: frames * 1_024,
            duration: count * 1_024,
            startsWithSync: true,
            bytes: [],
            ingested: []
        )
    }

    /// hls.js 1.6 sets MediaSource.duration to the video playlist's edge at start-up; audio listed past it is cut off
    /// and the next append fails (hls.js#7321). So audio is listed only as far as every video rendition in step.
    @Test func audioIsNeverListedPastTheVideoRenditionsListedEnd() {
        var a = Self.holding(video: 10, rung: 8)
        // Audio through 1.003 s (47 frames): 5 parts of 9 frames, then a 2-frame tail.
        for i in Int64(0)..<5 { a.hold(Self.aacPart(at: i * 9), name: "audio", timescale: 48_000, now: Self.t0) }
        a.hold(Self.aacPart(at: 45, count: 2), name: "audio", timescale: 48_000, now: Self.t0)
        let out = Self.release(&a, trailing: ["audio"])
        let audio = out.ready.filter { $0.name == "audio" }
        // The rung reached 0.8 s, so video is listed to 0.8 s (the source's part to 1.0 s waits: 4 parts).
        #expect(out.ready.filter { $0.name == "video" }.count == 4)
        // Audio ends at 0.768 s, the last part within 0.8 s; the part ending at 0.96 s waits.
        #expect(audio.count == 4)
        #expect(audio.map(\.end).max() == MediaTime(value: 36 * 1_920, timescale: 90_000))
        #expect(a.held.contains { $0.name == "audio" })
        // The rung catches up: the rest follows, but the tail part (to 1.003 s) waits for video past 1.0 s.
        a.hold(Self.part(at: 8), name: "180p", timescale: 90_000, now: Self.t0)
        let next = Self.release(&a, trailing: ["audio"])
        #expect(next.ready.filter { $0.name == "audio" }.count == 1)
        #expect(a.held.map(\.name) == ["audio"])
    }

    @Test func aRungStartingAfterItsSourceIsNotReportedBehindUntilItHasAPart() {
        var a = Self.holding(video: 16, rung: nil)
        #expect(Self.release(&a).events == [])
        #expect(a.lagging == ["180p"])
        // Its first part comes 1.2 s behind the source: now it is news.
        a.hold(Self.part(at: 0), name: "180p", timescale: 90_000, now: Self.t0)
        #expect(Self.release(&a).events == [.rungFellBehind("180p")])
        // A new timeline: the encoders start again, and a rung without its first part is quiet again.
        a.restart()
        a.hold(Self.part(at: 40), name: "video", timescale: 90_000, now: Self.t0)
        #expect(Self.release(&a).events == [])
        #expect(a.lagging == ["180p"])
    }
}
