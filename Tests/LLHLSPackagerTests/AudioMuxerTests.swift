import MediaCore
import Testing

@testable import LLHLSPackager

/// Audio follows the segment boundaries video decided (checklist V4, F7).
@Suite("RenditionMuxer: audio")
struct AudioMuxerTests {
    static let factory = MuxerFactory(partTarget: .milliseconds(201), segmentTarget: .seconds(2), targetDuration: 2)

    static func aac(_ n: Int) -> TrackSample {
        TrackSample(dts: Int64(n) * 1024, compositionOffset: 0, isSync: true, data: [UInt8(n & 0xFF)], ingested: nil)
    }

    @Test func cutsSegmentsAtTheBoundariesVideoReported() {
        var run = MuxRun(Self.factory.make(kind: .audio, timescale: 48_000, followsBoundaries: true))
        let boundaries: [Int64] = [96_000, 192_000, 288_000]
        for b in boundaries { run.muxer.addBoundary(b) }
        for n in 0..<400 { run.push(Self.aac(n)) }
        run.finish()
        let starts = run.segments.map { $0[0].startDTS }
        #expect(starts.count == boundaries.count + 1)
        #expect(starts.first == 0)
        // Each cut lands on the last AAC frame boundary a millisecond or more before video's: audio never ends past video.
        for (s, b) in zip(starts.dropFirst(), boundaries) {
            #expect(s <= b && b - s < 1024, "audio segment starts at \(s), video at \(b)")
            #expect(s % 1024 == 0)
        }
    }

    /// With the boundary known as the frame that opens the next segment arrives, the last part ends the segment then.
    @Test func theLastAudioPartEndsItsSegmentAsTheNextSegmentsFirstFrameArrives() throws {
        var muxer = Self.factory.make(kind: .audio, timescale: 48_000, followsBoundaries: true)
        muxer.addBoundary(96_000)
        var ended: [(part: MuxedPart, pushedAt: Int)] = []
        for n in 0..<200 { ended += muxer.push(Self.aac(n)).filter(\.endsSegment).map { ($0, n) } }
        let last = try #require(ended.first)
        #expect(ended.count == 1)
        #expect(last.part.startDTS + last.part.duration == 93 * 1024)
        #expect(last.pushedAt == 93)
    }

    @Test func boundariesAddedLaterStillCutTheOpenSegment() {
        var run = MuxRun(Self.factory.make(kind: .audio, timescale: 48_000, followsBoundaries: true))
        for n in 0..<80 { run.push(Self.aac(n)) }
        run.muxer.addBoundary(96_000)
        for n in 80..<200 { run.push(Self.aac(n)) }
        run.finish()
        #expect(run.segments.map { $0[0].startDTS } == [0, 93 * 1024])
    }

    @Test func audioPartsAreWholeFramesWithinThePartTarget() {
        var run = MuxRun(Self.factory.make(kind: .audio, timescale: 48_000, followsBoundaries: true))
        for b in stride(from: Int64(96_000), through: 960_000, by: 96_000) { run.muxer.addBoundary(b) }
        for n in 0..<1_000 { run.push(Self.aac(n)) }
        run.finish()
        let pt = run.muxer.partTarget
        #expect(pt == 9_648)
        for segment in run.segments {
            for (i, p) in segment.enumerated() {
                #expect(p.duration % 1024 == 0)
                #expect(p.duration <= pt)
                if i < segment.count - 1 { #expect(Double(p.duration) >= 0.85 * Double(pt)) }
                #expect(p.independent)
            }
        }
        #expect(run.parts.dropLast().allSatisfy { $0.duration >= 1024 })
    }

    /// Beside video, only the part opening a segment says INDEPENDENT: hls.js then starts audio where video starts.
    @Test func besideVideoOnlyASegmentsFirstPartIsIndependent() {
        var muxer = Self.factory.make(kind: .audio, timescale: 48_000, followsBoundaries: true)
        muxer.independentOnlyAtSegmentStarts = true
        var run = MuxRun(muxer)
        for b in stride(from: Int64(96_000), through: 960_000, by: 96_000) { run.muxer.addBoundary(b) }
        for n in 0..<1_000 { run.push(Self.aac(n)) }
        run.finish()
        #expect(run.segments.count >= 9)
        for segment in run.segments {
            #expect(segment.map(\.independent) == [true] + Array(repeating: false, count: segment.count - 1))
        }
    }

    @Test func audioOnlyCutsEveryTwoSecondsOnItsOwn() {
        var run = MuxRun(Self.factory.make(kind: .audio, timescale: 48_000, followsBoundaries: false))
        for n in 0..<500 { run.push(Self.aac(n)) }
        run.finish()
        let lengths = run.segments.dropLast().map { Double($0.reduce(0) { $0 + $1.duration }) / 48_000 }
        #expect(lengths.count == 5)
        #expect(lengths.allSatisfy { abs($0 - 2) <= 1024.0 / 48_000 }, "\(lengths)")
    }
}

/// PART-TARGET snapping: whole frames, rounded up to the millisecond, plus 1 ms for RTMP's ms timestamps.
@Suite("MuxerFactory.partTarget")
struct PartTargetTests {
    /// Wanted part, source frame rate, advertised PART-TARGET and why.
    static let cases: [(Duration, Double?, Duration, String)] = [
        (.milliseconds(200), 30, .milliseconds(201), "6 frames = 200.000 ms exactly → 200 + 1 ms"),
        (.milliseconds(200), 29.97, .milliseconds(202), "6 frames = 200.2002 ms → up to 201 → + 1 ms"),
        (.milliseconds(200), 25, .milliseconds(201), "5 frames = 200 ms → 201 ms"),
        (.milliseconds(200), 24, .milliseconds(210), "4.8 rounds to 5 frames = 208.33 ms → 209 → 210 ms"),
        (.milliseconds(200), 60, .milliseconds(201), "12 frames = 200 ms"),
        (.milliseconds(200), 59.94, .milliseconds(202), "12 frames = 200.2 ms"),
        (.milliseconds(500), 30, .milliseconds(501), "15 frames"),
        (.seconds(1), 29.97, .milliseconds(1003), "30 frames = 1001.001 ms → 1002 → 1003 ms"),
        (.milliseconds(20), 30, .milliseconds(35), "never less than one frame: 33.33 ms → 34 → 35 ms"),
        (.milliseconds(200), nil, .milliseconds(220), "no frame rate (WebRTC capture clocks): 10 % room for jitter"),
        (.milliseconds(200), 1, .milliseconds(220), "implausible frame rate ≤ 1: as unknown"),
        (.milliseconds(200), 300, .milliseconds(220), "implausible frame rate ≥ 241: as unknown"),
        (.milliseconds(500), nil, .milliseconds(550), "no frame rate, 500 ms wanted"),
    ]

    @Test(arguments: 0..<cases.count)
    func snapsToWholeFramesPlusOneMillisecond(_ i: Int) {
        let (wanted, fps, expected, why) = Self.cases[i]
        #expect(MuxerFactory.partTarget(wanted: wanted, frameRate: fps) == expected, "\(why)")
    }

    @Test func muxerTicksFloorTheAdvertisedTarget() {
        // The muxer never cuts a part longer than the advertised PART-TARGET (P3), in every timescale.
        for (pt, ts, ticks): (Duration, Int32, Int64) in [
            (.milliseconds(201), 90_000, 18_090), (.milliseconds(202), 90_000, 18_180),
            (.milliseconds(201), 48_000, 9_648), (.milliseconds(202), 44_100, 8_908),
        ] {
            let m = MuxerFactory(partTarget: pt, segmentTarget: .seconds(2), targetDuration: 2).make(
                kind: .video,
                timescale: ts,
                followsBoundaries: false
            )
            #expect(m.partTarget == ticks)
            #expect(Double(m.partTarget) / Double(ts) <= pt.secondsDouble)
        }
    }
}
