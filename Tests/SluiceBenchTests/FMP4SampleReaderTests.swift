import CodecFormats
import FMP4
import MediaCore
import TestSupport
import Testing

@testable import SluiceBench

/// Reading video samples back out of CMAF fragments: Sluice's own writer, hand-made boxes, and random bytes.
@Suite struct FMP4SampleReaderTests {
    /// `avcC` of x264 1280x720 high profile.
    static let avcC: [UInt8] = hex(
        "01 64 00 1F FF E1 00 1A 67 64 00 1F AC D9 40 50 05 BB 01 10 00 00 03 00 10 00 00 03 03 C0 F1 83 19 60 01 00"
            + "06 68 EB E3 CB 22 C0 FD F8 F8 00"
    )

    static func initSegment(trackID: UInt32 = 1, timescale: UInt32 = 90_000) -> [UInt8] {
        let video = VideoParameters(decoderConfiguration: avcC, width: 1280, height: 720, codecString: "avc1.64001f")
        return FMP4InitSegment.serialize(track: FMP4Track(trackID: trackID, timescale: timescale, media: .video(video)))
    }

    @Test func readsTheTrackFromTheInitSegment() throws {
        let reader = try FMP4SampleReader(initSegment: Self.initSegment(trackID: 7, timescale: 30_000))
        #expect(reader.trackID == 7)
        #expect(reader.timescale == 30_000)
        #expect(throws: BenchError.self) { try FMP4SampleReader(initSegment: [0, 0, 0, 8, 0x66, 0x72, 0x65, 0x65]) }
    }

    @Test func readsBackWhatTheWriterWrote() throws {
        let reader = try FMP4SampleReader(initSegment: Self.initSegment())
        let samples = [
            FMP4Sample(duration: 3_000, compositionOffset: 6_000, isSync: true, data: [0, 0, 0, 2, 0x65, 0x88]),
            FMP4Sample(duration: 3_000, compositionOffset: -3_000, isSync: false, data: [0, 0, 0, 1, 0x41]),
            FMP4Sample(duration: 3_000, compositionOffset: 0, isSync: false, data: [0, 0, 0, 3, 0x01, 0x02, 0x03]),
        ]
        let part = FMP4Fragment.serialize(sequenceNumber: 1, trackID: 1, baseMediaDecodeTime: 900_000, samples: samples)
        let next = FMP4Fragment.serialize(
            sequenceNumber: 2,
            trackID: 1,
            baseMediaDecodeTime: 909_000,
            samples: [samples[1]]
        )
        let read = try reader.samples(in: part + next)
        #expect(read.map(\.dts.value) == [900_000, 903_000, 906_000, 909_000])
        #expect(read.map(\.pts.value) == [906_000, 900_000, 906_000, 906_000])
        #expect(read.map(\.isSync) == [true, false, false, false])
        #expect(read.map(\.data) == samples.map(\.data) + [samples[1].data])
        #expect(read.allSatisfy { $0.duration == MediaTime(value: 3_000, timescale: 90_000) })
    }

    /// tfhd with base-data-offset, default size/duration/flags; trun with first-sample-flags and no per-sample fields.
    @Test func appliesTfhdDefaultsAndAnExplicitBaseOffset() throws {
        let reader = try FMP4SampleReader(initSegment: Self.initSegment())
        let mdatBody: [UInt8] = [0xA1, 0xA2, 0xB1, 0xB2]
        let tfhd = hex("00 00 00 39  00 00 00 01  00 00 00 00 00 00 00 00  00 00 0B B8  00 00 00 02  01 01 00 00")
        let trun = hex("00 00 00 04  00 00 00 02  02 00 00 00")
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let n = body.count + 8
            return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + Array(type.utf8)
                + body
        }
        var moof = box(
            "moof",
            box("traf", box("tfhd", tfhd) + box("tfdt", hex("00 00 00 00 00 00 00 64")) + box("trun", trun))
        )
        let offset = moof.count + 8  // The explicit base points straight at the mdat body.
        moof = box(
            "moof",
            box(
                "traf",
                box("tfhd", Array(tfhd[0..<8]) + [0, 0, 0, 0, 0, 0, 0, UInt8(offset)] + Array(tfhd[16...]))
                    + box("tfdt", hex("00 00 00 00 00 00 00 64")) + box("trun", trun)
            )
        )
        let read = try reader.samples(in: moof + box("mdat", mdatBody))
        #expect(read.map(\.data) == [[0xA1, 0xA2], [0xB1, 0xB2]])
        #expect(read.map(\.dts.value) == [100, 3_100])
        #expect(read.map(\.isSync) == [true, false])
    }

    @Test func skipsOtherTracksAndRejectsSamplesOutsideTheData() throws {
        let reader = try FMP4SampleReader(initSegment: Self.initSegment())
        let audio = FMP4Fragment.serialize(
            sequenceNumber: 1,
            trackID: 2,
            baseMediaDecodeTime: 0,
            samples: [FMP4Sample(duration: 1_024, isSync: true, data: [1, 2])]
        )
        #expect(try reader.samples(in: audio).isEmpty)
        let video = FMP4Fragment.serialize(
            sequenceNumber: 1,
            trackID: 1,
            baseMediaDecodeTime: 0,
            samples: [FMP4Sample(duration: 1, isSync: true, data: [1, 2, 3])]
        )
        // Cut inside the mdat but fix its size so the box layer still parses.
        var cut = Array(video.dropLast(2))
        cut[cut.count - 6] = 9
        #expect(throws: BenchError.self) { try reader.samples(in: cut) }
    }

    @Test func randomSamplesRoundTrip() throws {
        var rng = SeededRandom(seed: 0xF4_0F4)
        let reader = try FMP4SampleReader(initSegment: Self.initSegment())
        for _ in 0..<200 {
            let samples = (0..<Int.random(in: 1...20, using: &rng)).map { _ in
                FMP4Sample(
                    duration: UInt32.random(in: 1...9_000, using: &rng),
                    compositionOffset: Int32.random(in: -9_000...9_000, using: &rng),
                    isSync: Bool.random(using: &rng),
                    data: rng.bytes(Int.random(in: 0...300, using: &rng))
                )
            }
            let base = UInt64.random(in: 0...(1 << 40), using: &rng)
            let read = try reader.samples(
                in: FMP4Fragment.serialize(sequenceNumber: 1, trackID: 1, baseMediaDecodeTime: base, samples: samples)
            )
            #expect(read.map(\.data) == samples.map(\.data))
            #expect(read.map(\.isSync) == samples.map(\.isSync))
            #expect(read.first?.dts.value == Int64(base))
            #expect(zip(read, samples).allSatisfy { $0.pts.value - $0.dts.value == Int64($1.compositionOffset) })
        }
    }

    @Test func randomAndDamagedFragmentsNeverCrash() throws {
        var rng = SeededRandom(seed: 0xDEAD_F4)
        let reader = try FMP4SampleReader(initSegment: Self.initSegment())
        let valid = FMP4Fragment.serialize(
            sequenceNumber: 1,
            trackID: 1,
            baseMediaDecodeTime: 0,
            samples: (0..<5).map { _ in FMP4Sample(duration: 3_000, isSync: true, data: rng.bytes(40)) }
        )
        for _ in 0..<3_000 {
            _ = try? reader.samples(in: rng.bytes(Int.random(in: 0...200, using: &rng)))
            var damaged = valid
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                damaged[Int.random(in: 0..<damaged.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            _ = try? reader.samples(in: damaged)
            _ = try? FMP4SampleReader(
                initSegment: Array(Self.initSegment().prefix(Int.random(in: 0...700, using: &rng)))
            )
        }
    }
}
