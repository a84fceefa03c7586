import FMP4
import MediaCore
import TestSupport
import Testing

/// One chunk: the arguments to `FMP4Fragment.serialize` and the exact bytes they must produce.
struct FragmentCase: CustomTestStringConvertible, Sendable {
    let name: String
    let sequenceNumber: UInt32
    let trackID: UInt32
    let baseMediaDecodeTime: UInt64
    let samples: [FMP4Sample]
    let bytes: [UInt8]
    var testDescription: String { name }

    static let all: [FragmentCase] = [
        FragmentCase(
            name: "one sync sample",
            sequenceNumber: 1,
            trackID: 1,
            baseMediaDecodeTime: 0,
            samples: [FMP4Sample(duration: 3000, isSync: true, data: [0xAA, 0xBB])],
            bytes: hexBytes(
                """
                00000068 6d6f6f66
                  00000010 6d666864 00000000 00000001
                  00000050 74726166
                    00000010 74666864 00020000 00000001
                    00000014 74666474 01000000 0000000000000000
                    00000024 7472756e 01000f01 00000001 00000070
                      00000bb8 00000002 02000000 00000000
                0000000a 6d646174 aabb
                """
            )
        ),
        FragmentCase(
            name: "B-frame pair with negative offset and 64-bit tfdt",
            sequenceNumber: 7,
            trackID: 2,
            baseMediaDecodeTime: 0x1_0000_0000,
            samples: [
                FMP4Sample(duration: 1024, compositionOffset: 2048, isSync: false, data: [1]),
                FMP4Sample(duration: 1024, compositionOffset: -1024, isSync: false, data: [2, 3]),
            ],
            bytes: hexBytes(
                """
                00000078 6d6f6f66
                  00000010 6d666864 00000000 00000007
                  00000060 74726166
                    00000010 74666864 00020000 00000002
                    00000014 74666474 01000000 0000000100000000
                    00000034 7472756e 01000f01 00000002 00000080
                      00000400 00000001 01010000 00000800
                      00000400 00000002 01010000 fffffc00
                0000000b 6d646174 010203
                """
            )
        ),
    ]
}

/// Hex with whitespace to bytes.
func hexBytes(_ text: String) -> [UInt8] {
    let digits = Array(text.filter(\.isHexDigit))
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

/// CMAF chunk bytes and how a player reads them back.
@Suite struct FMP4FragmentTests {
    @Test(arguments: FragmentCase.all) func encodes(_ c: FragmentCase) {
        let bytes = FMP4Fragment.serialize(
            sequenceNumber: c.sequenceNumber,
            trackID: c.trackID,
            baseMediaDecodeTime: c.baseMediaDecodeTime,
            samples: c.samples
        )
        #expect(bytes == c.bytes)
    }

    @Test(arguments: FragmentCase.all) func decodes(_ c: FragmentCase) throws {
        let chunk = try Chunk(c.bytes)
        #expect(chunk.sequenceNumber == c.sequenceNumber)
        #expect(chunk.trackID == c.trackID)
        #expect(chunk.baseMediaDecodeTime == c.baseMediaDecodeTime)
        #expect(chunk.samples == c.samples)
    }

    @Test func randomSampleListsRoundTripAndOffsetsHitTheSampleBytes() throws {
        var rng = SeededRandom(seed: 0xF4A6)
        for _ in 0..<300 {
            let samples = (0..<Int.random(in: 0...40, using: &rng)).map { _ in
                FMP4Sample(
                    duration: UInt32.random(in: 0...90_000, using: &rng),
                    compositionOffset: Int32.random(in: -9_000...9_000, using: &rng),
                    isSync: Bool.random(using: &rng),
                    data: rng.bytes(Int.random(in: 0...200, using: &rng))
                )
            }
            let sequence = UInt32.random(in: 0...UInt32.max, using: &rng)
            let time = UInt64.random(in: 0...UInt64.max, using: &rng)
            let bytes = FMP4Fragment.serialize(
                sequenceNumber: sequence,
                trackID: 3,
                baseMediaDecodeTime: time,
                samples: samples
            )
            let chunk = try Chunk(bytes)
            #expect(chunk.sequenceNumber == sequence && chunk.trackID == 3 && chunk.baseMediaDecodeTime == time)
            #expect(chunk.samples == samples)
        }
    }
}

/// A chunk read back the way a player does: trun data_offset counted from the moof's first byte.
struct Chunk {
    var sequenceNumber: UInt32
    var trackID: UInt32
    var baseMediaDecodeTime: UInt64
    var samples: [FMP4Sample]

    init(_ bytes: [UInt8]) throws {
        let boxes = try MP4Box.parse(bytes)
        #expect(boxes.map(\.type) == ["moof", "mdat"])
        let moof = try #require(boxes.first)
        #expect(moof.children.map(\.type) == ["mfhd", "traf"])
        #expect(moof.find("traf")?.children.map(\.type) == ["tfhd", "tfdt", "trun"])
        var mfhd = try #require(moof.child("mfhd")).reader(skip: 4)
        sequenceNumber = try mfhd.readUInt32()
        let tfhd = try #require(moof.find("traf/tfhd"))
        #expect(tfhd.flags == 0x020000, "default-base-is-moof only")
        #expect(tfhd.payload.count == 8, "no optional tfhd fields")
        var t = try tfhd.reader(skip: 4)
        trackID = try t.readUInt32()
        let tfdt = try #require(moof.find("traf/tfdt"))
        #expect(tfdt.version == 1)
        var d = try tfdt.reader(skip: 4)
        baseMediaDecodeTime = try d.readUInt64()
        let trunBox = try #require(moof.find("traf/trun"))
        #expect(trunBox.version == 1)
        #expect(trunBox.flags == 0x000F01)
        let trun = try TrackRun(trunBox)
        // The moof starts at index 0 of `bytes`; samples are laid out back to back from data_offset.
        var cursor = Int(trun.dataOffset)
        let mdat = try #require(boxes.last)
        #expect(cursor == mdat.payload.startIndex, "data_offset must point at the first mdat byte")
        samples = []
        for entry in trun.entries {
            let end = cursor + Int(entry.size)
            #expect(end <= mdat.payload.endIndex)
            let flagsOK = entry.flags == 0x0200_0000 || entry.flags == 0x0101_0000
            #expect(flagsOK, "sample flags \(entry.flags)")
            samples.append(
                FMP4Sample(
                    duration: entry.duration,
                    compositionOffset: entry.compositionOffset,
                    isSync: entry.flags == 0x0200_0000,
                    data: Array(bytes[cursor..<min(end, bytes.count)])
                )
            )
            cursor = end
        }
        #expect(cursor == mdat.payload.endIndex, "mdat holds exactly the samples")
    }
}
