import FMP4
import MediaCore
import TestSupport
import Testing

@testable import LLHLSPackager

/// How one synthetic video track is timed.
struct VideoTiming: CustomTestStringConvertible, Sendable {
    var name: String
    var fps: Double
    /// Decode time of frame n in 90 kHz ticks.
    var dts: @Sendable (Int) -> Int64
    /// Keyframe interval in frames.
    var gop: Int
    var testDescription: String { name }

    static func exact(_ fps: Double, ticks: Int64, gop: Int) -> VideoTiming {
        VideoTiming(name: "\(fps) fps, \(ticks) ticks, GOP \(gop)", fps: fps, dts: { Int64($0) * ticks }, gop: gop)
    }

    /// RTMP's millisecond timestamps (33/34 ms steps) converted to 90 kHz.
    static func milliseconds(_ fps: Double, gop: Int) -> VideoTiming {
        VideoTiming(
            name: "\(fps) fps rounded to ms, GOP \(gop)",
            fps: fps,
            dts: { Int64((Double($0) * 1000 / fps).rounded()) * 90 },
            gop: gop
        )
    }

    /// GOPs that fit the 2 s segment target.
    static let fitting: [VideoTiming] = [
        .exact(30, ticks: 3_000, gop: 30), .exact(30, ticks: 3_000, gop: 60), .exact(29.97, ticks: 3_003, gop: 60),
        .exact(29.97, ticks: 3_003, gop: 30), .exact(25, ticks: 3_600, gop: 50), .milliseconds(30, gop: 60),
        .milliseconds(29.97, gop: 60), .milliseconds(30, gop: 30),
    ]
}

/// Runs a muxer over samples and groups what it published.
struct MuxRun {
    var muxer: RenditionMuxer
    var parts: [MuxedPart] = []
    var samples: [TrackSample] = []

    init(_ muxer: RenditionMuxer) { self.muxer = muxer }

    mutating func push(_ s: TrackSample) {
        samples.append(s)
        parts += muxer.push(s)
    }

    mutating func finish() { parts += muxer.flush() }

    /// Parts grouped by segment.
    var segments: [[MuxedPart]] {
        var out: [[MuxedPart]] = []
        for p in parts {
            if p.startsSegment || out.isEmpty { out.append([p]) } else { out[out.count - 1].append(p) }
        }
        return out
    }

    /// True when the sample at `dts` is a sync sample.
    func isSync(at dts: Int64) -> Bool { samples.first { $0.dts == dts }?.isSync ?? false }
}

@Suite("RenditionMuxer: part and segment cutting")
struct RenditionMuxerTests {
    static func factory(fps: Double?) -> MuxerFactory {
        MuxerFactory(
            partTarget: MuxerFactory.partTarget(wanted: .milliseconds(200), frameRate: fps),
            segmentTarget: .seconds(2),
            targetDuration: 2
        )
    }

    static func runVideo(_ t: VideoTiming, frames: Int = 900) -> MuxRun {
        var run = MuxRun(factory(fps: t.fps).make(kind: .video, timescale: 90_000, followsBoundaries: false))
        for n in 0..<frames {
            run.push(
                TrackSample(
                    dts: t.dts(n),
                    compositionOffset: 0,
                    isSync: n % t.gop == 0,
                    data: [UInt8(n & 0xFF), 1, 2],
                    ingested: nil
                )
            )
        }
        run.finish()
        return run
    }

    @Test(arguments: VideoTiming.fitting)
    func partsNeverExceedPartTargetAndOnlyIndependentOrLastPartsAreShort(_ t: VideoTiming) {
        let run = Self.runVideo(t)
        let pt = run.muxer.partTarget
        #expect(!run.parts.isEmpty)
        for segment in run.segments {
            for (i, p) in segment.enumerated() {
                #expect(p.duration <= pt, "part \(p.duration) > PT \(pt)")
                if !p.independent && i != segment.count - 1 {
                    #expect(Double(p.duration) >= 0.85 * Double(pt), "part \(p.duration) < 0.85 × \(pt)")
                }
            }
        }
    }

    @Test(arguments: VideoTiming.fitting)
    func segmentsStartOnKeyframesAndLastAboutTheTarget(_ t: VideoTiming) {
        let run = Self.runVideo(t)
        let segments = run.segments
        #expect(segments.count >= 14)
        for (i, s) in segments.enumerated() {
            #expect(s[0].independent && run.isSync(at: s[0].startDTS), "segment \(i) starts on a non-sync sample")
            let seconds = Double(s.reduce(0) { $0 + $1.duration }) / 90_000
            #expect(seconds.rounded() <= 2, "segment \(i) is \(seconds) s")
            if i < segments.count - 1 { #expect(seconds > 1.9, "segment \(i) is \(seconds) s") }
        }
    }

    /// A segment's last part says so, and comes out as the keyframe that opens the next segment arrives: the segment
    /// is complete in the playlist then, not a part later when the next segment's first part closes.
    @Test(arguments: VideoTiming.fitting)
    func theLastPartOfASegmentEndsItAsTheNextKeyframeArrives(_ t: VideoTiming) {
        var muxer = Self.factory(fps: t.fps).make(kind: .video, timescale: 90_000, followsBoundaries: false)
        var all: [(part: MuxedPart, pushedAt: Int)] = []
        for n in 0..<600 {
            let sample = TrackSample(
                dts: t.dts(n),
                compositionOffset: 0,
                isSync: n % t.gop == 0,
                data: [1],
                ingested: nil
            )
            all += muxer.push(sample).map { ($0, n) }
        }
        let starts = all.filter(\.part.startsSegment).map(\.part.startDTS)
        let ends = all.filter(\.part.endsSegment)
        #expect(starts.count >= 9)
        #expect(ends.count == starts.count - 1, "every closed segment's last part is marked, and only it")
        for (end, next) in zip(ends, starts.dropFirst()) {
            #expect(end.part.startDTS + end.part.duration == next)
            #expect(
                t.dts(end.pushedAt) == next,
                "the last part came out at frame \(end.pushedAt), not with the keyframe"
            )
        }
    }

    @Test(arguments: VideoTiming.fitting)
    func partDurationsTileTheTimelineWithoutGaps(_ t: VideoTiming) {
        let run = Self.runVideo(t)
        for (a, b) in zip(run.parts, run.parts.dropFirst()) {
            #expect(a.startDTS + a.duration == b.startDTS)
        }
        // Sum of part durations is each segment's span (P4): the next segment starts where its parts end.
        let segments = run.segments
        for (a, b) in zip(segments, segments.dropFirst()) {
            #expect(a[0].startDTS + a.reduce(0) { $0 + $1.duration } == b[0].startDTS)
        }
        #expect(run.parts.first?.startDTS == t.dts(0))
    }

    @Test(arguments: VideoTiming.fitting)
    func partBytesAreCMAFChunksWithContinuousDecodeTimes(_ t: VideoTiming) throws {
        let run = Self.runVideo(t, frames: 300)
        var expectedTFDT: UInt64?
        var lastSequence: UInt32 = 0
        var samplesSeen = 0
        for p in run.parts {
            let chunk = try Chunk(p.bytes)
            #expect(chunk.tfdt == UInt64(p.startDTS))
            if let e = expectedTFDT { #expect(chunk.tfdt == e, "tfdt does not continue the previous part (F4)") }
            expectedTFDT = chunk.tfdt + chunk.durations.reduce(0) { $0 + UInt64($1) }
            #expect(chunk.durations.reduce(0) { $0 + Int64($1) } == p.duration)
            #expect(chunk.sequenceNumber > lastSequence)
            lastSequence = chunk.sequenceNumber
            // F5/F6: the first sample's flags agree with INDEPENDENT.
            #expect((chunk.flags[0] == 0x0200_0000) == p.independent)
            #expect(chunk.mdatSize == chunk.sizes.reduce(0, +))
            samplesSeen += chunk.durations.count
        }
        #expect(samplesSeen == 300)
    }

    @Test func gopLongerThanTheLimitIsCutAtTargetDurationPlusLeeway() {
        // 3 s GOP: the muxer must cut without a keyframe so EXTINF never rounds above TARGETDURATION (M2).
        let run = Self.runVideo(.exact(30, ticks: 3_000, gop: 90), frames: 900)
        let limit = run.muxer.segmentLimit
        #expect(limit == Int64(2.45 * 90_000))
        let segments = run.segments
        #expect(segments.count >= 6)
        for s in segments {
            let total = s.reduce(0) { $0 + $1.duration }
            #expect(total <= limit)
            #expect((Double(total) / 90_000).rounded() <= 2)
            for p in s { #expect(p.duration <= run.muxer.partTarget) }
        }
        #expect(segments.contains { !$0[0].independent }, "a 3 s GOP needs forced cuts")
    }

    @Test(arguments: [45, 50])
    func segmentsStartOnKeyframesWhenTheGOPDoesNotDivideTheTarget(_ gop: Int) {
        // GOP 1.5 s or 1.67 s fits TARGETDURATION 2, so every segment can and should start with an IDR [A 7.4].
        let run = Self.runVideo(.exact(30, ticks: 3_000, gop: gop), frames: 600)
        let starts = run.segments.map { $0[0] }
        do {
            #expect(
                starts.allSatisfy { $0.independent },
                "segment starts: \(starts.map { "\($0.startDTS / 3_000)\($0.independent ? "K" : "")" })"
            )
        }
    }

    @Test func randomSampleDurationsNeverBreakTheInvariants() {
        var rng = SeededRandom(seed: 7)
        for round in 0..<50 {
            var run = MuxRun(Self.factory(fps: nil).make(kind: .video, timescale: 90_000, followsBoundaries: false))
            var dts = Int64.random(in: 0...1_000_000, using: &rng)
            let count = Int.random(in: 1...400, using: &rng)
            for _ in 0..<count {
                run.push(
                    TrackSample(
                        dts: dts,
                        compositionOffset: 0,
                        isSync: Int.random(in: 0..<20, using: &rng) == 0,
                        data: [1],
                        ingested: nil
                    )
                )
                dts += Int64.random(in: 1...6_000, using: &rng)
            }
            run.finish()
            #expect(run.parts.reduce(0) { $0 + $1.bytes.count } > 0)
            #expect(
                run.parts.map { (try? Chunk($0.bytes))?.durations.count ?? 0 }.reduce(0, +) == count,
                "round \(round)"
            )
            for (a, b) in zip(run.parts, run.parts.dropFirst()) { #expect(a.startDTS + a.duration == b.startDTS) }
            for p in run.parts { #expect(p.duration <= run.muxer.partTarget, "round \(round)") }
            for s in run.segments {
                #expect(s.reduce(0) { $0 + $1.duration } <= run.muxer.segmentLimit, "round \(round)")
            }
        }
    }
}

/// The fields of one moof+mdat chunk the tests check (ISO/IEC 14496-12 §8.8).
struct Chunk {
    var sequenceNumber: UInt32
    var tfdt: UInt64
    var durations: [UInt32] = []
    var sizes: [Int] = []
    var flags: [UInt32] = []
    var mdatSize: Int

    init(_ bytes: [UInt8]) throws {
        let boxes = try MP4Box.parse(bytes)
        #expect(boxes.map(\.type) == ["moof", "mdat"])
        let moof = boxes[0]
        #expect(moof.children.map(\.type) == ["mfhd", "traf"])
        let traf = try #require(moof.child("traf"))
        #expect(traf.children.map(\.type) == ["tfhd", "tfdt", "trun"])
        var mfhd = ByteReader(Array(try #require(moof.child("mfhd")).payload))
        try mfhd.skip(4)
        sequenceNumber = try mfhd.readUInt32()
        let tfdtBox = try #require(traf.child("tfdt"))
        #expect(tfdtBox.payload.first == 1, "tfdt version 1")
        var r = ByteReader(Array(tfdtBox.payload))
        try r.skip(4)
        tfdt = try r.readUInt64()
        var trun = ByteReader(Array(try #require(traf.child("trun")).payload))
        try trun.skip(4)
        let count = Int(try trun.readUInt32())
        let dataOffset = Int(try trun.readUInt32())
        #expect(dataOffset == moof.payload.count + 8 + 8, "data_offset points at the first mdat byte")
        for _ in 0..<count {
            durations.append(try trun.readUInt32())
            sizes.append(Int(try trun.readUInt32()))
            flags.append(try trun.readUInt32())
            _ = try trun.readUInt32()
        }
        mdatSize = boxes[1].payload.count
    }
}
