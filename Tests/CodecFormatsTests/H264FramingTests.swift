import CodecFormats
import TestSupport
import Testing

/// One access unit in both framings.
struct FramingCase: CustomTestStringConvertible, Sendable {
    let name: String
    let nals: [[UInt8]]
    let avcc: [UInt8]
    let annexB: [UInt8]
    var testDescription: String { name }

    static let all: [FramingCase] = [
        FramingCase(
            name: "AUD + IDR",
            nals: [[0x09, 0xF0], [0x65, 0x88, 0x84]],
            avcc: [0, 0, 0, 2, 0x09, 0xF0, 0, 0, 0, 3, 0x65, 0x88, 0x84],
            annexB: [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1, 0x65, 0x88, 0x84]
        ),
        FramingCase(
            name: "single slice",
            nals: [[0x41, 0x9A]],
            avcc: [0, 0, 0, 2, 0x41, 0x9A],
            annexB: [0, 0, 0, 1, 0x41, 0x9A]
        ),
        FramingCase(name: "empty", nals: [], avcc: [], annexB: []),
    ]
}

/// AVCC and Annex B framing and length-prefix conversion.
@Suite struct H264FramingTests {
    @Test(arguments: FramingCase.all) func splitsBothFramings(_ c: FramingCase) throws {
        #expect(try H264.nalUnits(avcc: c.avcc).map(Array.init) == c.nals)
        #expect(H264.nalUnits(annexB: c.annexB).map(Array.init) == c.nals)
    }

    @Test(arguments: FramingCase.all) func convertsBetweenFramings(_ c: FramingCase) throws {
        #expect(H264.avcc(fromAnnexB: c.annexB) == c.avcc)
        #expect(try H264.annexB(fromAVCC: c.avcc) == c.annexB)
    }

    @Test func splitsThreeByteStartCodesAndDropsTrailingZeros() {
        let stream: [UInt8] = [0, 0, 1, 0x67, 0x42, 0, 0, 0, 1, 0x68, 0xCE, 0, 0, 1, 0x65, 0x88, 0, 0]
        #expect(H264.nalUnits(annexB: stream).map(Array.init) == [[0x67, 0x42], [0x68, 0xCE], [0x65, 0x88]])
    }

    @Test func reportsLengthPastEnd() {
        #expect(throws: CodecFormatError.badNALLength(offset: 5, length: 9, available: 2)) {
            try H264.nalUnits(avcc: [0, 0, 0, 1, 0x09, 0, 0, 0, 9, 0x65, 0x88])
        }
        #expect(throws: CodecFormatError.invalidLengthSize(5)) { try H264.nalUnits(avcc: [], lengthSize: 5) }
    }

    @Test func detectsIDRAndNALType() {
        #expect(H264.containsIDR(avcc: FramingCase.all[0].avcc))
        #expect(!H264.containsIDR(avcc: FramingCase.all[1].avcc))
        #expect(!H264.containsIDR(avcc: [0, 0, 0, 9, 0x65]))
        #expect(H264.nalType([0x65, 0x88][...]) == H264NALUnitType.idr.rawValue)
        #expect(H264.nalType([0x67][...]) == H264NALUnitType.sps.rawValue)
    }

    @Test func refusesNALTooLargeForTargetLengthSize() {
        let big = [0, 0, 1, 0] + [UInt8](repeating: 0x41, count: 256)
        #expect(throws: CodecFormatError.nalTooLarge(length: 256, lengthSize: 1)) {
            try H264.convertLengthPrefix(big, from: 4, to: 1)
        }
    }

    /// Random NAL units shaped like real ones: non-zero header and last byte, no start-code emulation inside.
    static func randomNALs(_ rng: inout SeededRandom) -> [[UInt8]] {
        (0..<Int.random(in: 0...6, using: &rng)).map { _ in
            var nal = [UInt8.random(in: 1...0x7F, using: &rng)]
            var zeros = 0
            for _ in 0..<Int.random(in: 0...300, using: &rng) {
                var byte = UInt8.random(in: 0...255, using: &rng)
                if zeros >= 2 && byte <= 3 { byte = 4 }
                zeros = byte == 0 ? zeros + 1 : 0
                nal.append(byte)
            }
            if nal.last == 0 { nal.append(0x80) }
            return nal
        }
    }

    @Test func randomNALListsRoundTripBetweenAVCCAndAnnexB() throws {
        var rng = SeededRandom(seed: 0x264)
        for _ in 0..<500 {
            let nals = Self.randomNALs(&rng)
            let annexB = nals.flatMap { ([0, 0, 0, 1] as [UInt8]).suffix(Bool.random(using: &rng) ? 4 : 3) + $0 }
            let avcc = H264.avcc(fromAnnexB: annexB)
            #expect(try H264.nalUnits(avcc: avcc).map(Array.init) == nals)
            #expect(H264.nalUnits(annexB: try H264.annexB(fromAVCC: avcc)).map(Array.init) == nals)
        }
    }

    @Test func randomLengthPrefixConversionsRoundTrip() throws {
        var rng = SeededRandom(seed: 0x1E9)
        for _ in 0..<500 {
            let nals = Self.randomNALs(&rng)
            let avcc4 = H264.avcc(fromAnnexB: nals.flatMap { [0, 0, 1] + $0 })
            for size in [1, 2, 3, 4] {
                let fits = nals.allSatisfy { $0.count < 1 << (8 * size) }
                guard fits else {
                    #expect(throws: CodecFormatError.self) { try H264.convertLengthPrefix(avcc4, from: 4, to: size) }
                    continue
                }
                let converted = try H264.convertLengthPrefix(avcc4, from: 4, to: size)
                #expect(try H264.nalUnits(avcc: converted, lengthSize: size).map(Array.init) == nals)
                #expect(try H264.convertLengthPrefix(converted, from: size, to: 4) == avcc4)
            }
        }
    }

    @Test func randomBytesNeverCrashTheSplitters() {
        var rng = SeededRandom(seed: 0xB17E)
        for _ in 0..<2_000 {
            let data = rng.bytes(Int.random(in: 0...64, using: &rng))
            for size in 1...4 { _ = try? H264.nalUnits(avcc: data, lengthSize: size) }
            _ = H264.nalUnits(annexB: data)
            _ = H264.containsIDR(avcc: data)
        }
    }
}
