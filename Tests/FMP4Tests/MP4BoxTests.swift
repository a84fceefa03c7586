import FMP4
import TestSupport
import Testing

/// Box framing, size forms and malformed input.
@Suite struct MP4BoxTests {
    @Test func parsesNestedContainersAndLeaves() throws {
        let bytes = hexBytes("00000018 6d6f6f76 00000010 7472616b 00000008 746b6864 00000009 66726565 ff")
        let boxes = try MP4Box.parse(bytes)
        #expect(boxes.map(\.type) == ["moov", "free"])
        #expect(boxes[0].children.map(\.type) == ["trak"])
        #expect(boxes[0].find("trak/tkhd")?.payload.isEmpty == true)
        #expect(Array(boxes[1].payload) == [0xFF])
        #expect(boxes[1].children.isEmpty)
    }

    @Test func readsLargeSizeAndSizeZeroToEnd() throws {
        let large = hexBytes("00000001 6d646174 0000000000000012 0102")
        let boxes = try MP4Box.parse(large + hexBytes("00000000 66726565 0304 05"))
        #expect(boxes.map(\.type) == ["mdat", "free"])
        #expect(Array(boxes[0].payload) == [1, 2])
        #expect(Array(boxes[1].payload) == [3, 4, 5])
    }

    @Test func reportsBadSizesWithContext() {
        #expect(throws: FMP4Error.truncatedHeader(offset: 0, available: 4)) { try MP4Box.parse([0, 0, 0, 8]) }
        #expect(throws: FMP4Error.sizeTooSmall(type: "free", offset: 0, size: 4)) {
            try MP4Box.parse(hexBytes("00000004 66726565"))
        }
        #expect(throws: FMP4Error.sizePastEnd(type: "free", offset: 0, size: 9, available: 8)) {
            try MP4Box.parse(hexBytes("00000009 66726565"))
        }
        #expect(throws: FMP4Error.truncatedFields(type: "stsd", needed: 8, available: 4)) {
            try MP4Box.parse(hexBytes("0000000c 73747364 00000000"))
        }
    }

    @Test func mutatedSegmentsNeverCrashTheParser() throws {
        var rng = SeededRandom(seed: 0xB0C5)
        let seeds = [
            FMP4InitSegment.serialize(track: try Fixtures.videoTrack()),
            FMP4InitSegment.serialize(track: try Fixtures.audioTrack()),
            FragmentCase.all[1].bytes,
        ]
        for i in 0..<3_000 {
            let input = i % 4 == 3 ? rng.bytes(Int.random(in: 0...64, using: &rng)) : rng.mutate(seeds[i % 3])
            if let boxes = try? MP4Box.parse(input) {
                #expect(boxes.reduce(0) { $0 + $1.payload.count } <= input.count)
            }
        }
    }
}
