import CodecFormats
import MediaCore
import TestSupport
import Testing

/// One capture time as an HEVC prefix SEI NAL unit (H.265 §7.3.2.4, D.2.7) and as an AV1 T.35 metadata OBU
/// (AV1 §5.8.1, §5.8.2), bytes worked out by hand; HEVC escapes like H.264 (§7.4.2), AV1 never escapes.
struct CaptureCodecCase: CustomTestStringConvertible, Sendable {
    let name: String
    let micros: Int64
    let hevcNAL: [UInt8]
    let av1OBU: [UInt8]
    var testDescription: String { name }

    static let uuid = hex("5C1ECE7A 3B414D9E B26F8AC4 17D5E92B")
    /// NAL header 4E 01 (type 39, layer 0, TemporalId 0), payloadType 05, payloadSize 0x18, the UUID.
    static let hevcHead = hex("4E 01 05 18") + uuid
    /// OBU header 2A (OBU_METADATA, has_size_field), obu_size 0x1B (27), metadata_type 04, country B5, the UUID.
    static let av1Head = hex("2A 1B 04 B5") + uuid

    static let all: [CaptureCodecCase] = [
        CaptureCodecCase(
            name: "2025-11-13, no escaping",
            micros: 1_763_000_000_123_456,
            hevcNAL: hevcHead + hex("00 06 43 70 6C BF 12 40 80"),
            av1OBU: av1Head + hex("00 06 43 70 6C BF 12 40 80")
        ),
        // 00 00 01 would be a start code in HEVC (03 inserted); AV1's sized OBUs carry it as it is.
        CaptureCodecCase(
            name: "00 00 01 inside the clock",
            micros: 0x0006_1234_0000_0102,
            hevcNAL: hevcHead + hex("00 06 12 34 00 00 03 01 02 80"),
            av1OBU: av1Head + hex("00 06 12 34 00 00 01 02 80")
        ),
        CaptureCodecCase(
            name: "the epoch",
            micros: 0,
            hevcNAL: hevcHead + hex("00 00 03 00 00 03 00 00 03 00 00 80"),
            av1OBU: av1Head + hex("00 00 00 00 00 00 00 00 80")
        ),
    ]

    var time: WallTime { WallTime(nanosecondsSince1970: micros * 1_000) }
}

/// The capture clock in HEVC and AV1 sources: golden bytes both ways, insertion where decoders expect it, one clock
/// after re-stamping, other units untouched, garbage rejected.
@Suite struct CaptureTimeHEVCAV1Tests {
    @Test(arguments: CaptureCodecCase.all) func encodesTheGoldenBytes(_ c: CaptureCodecCase) {
        #expect(CaptureTimeSEI.hevcNALUnit(capture: c.time) == c.hevcNAL)
        #expect(CaptureTimeOBU.obu(capture: c.time) == c.av1OBU)
    }

    @Test(arguments: CaptureCodecCase.all) func decodesTheGoldenBytes(_ c: CaptureCodecCase) {
        #expect(CaptureTimeSEI.captureTime(inHEVCNALUnit: c.hevcNAL) == c.time)
        #expect(CaptureTimeOBU.captureTime(inTemporalUnit: c.av1OBU) == c.time)
        #expect(CaptureStamp.read(lengthPrefixed(c.hevcNAL), codec: .hevc) == c.time)
        #expect(CaptureStamp.read(c.av1OBU, codec: .av1) == c.time)
    }

    @Test func h264SEIIsNotReadAsHEVCNorTheReverse() {
        let time = CaptureCodecCase.all[0].time
        #expect(CaptureTimeSEI.captureTime(inHEVCNALUnit: CaptureTimeSEI.nalUnit(capture: time)) == nil)
        #expect(CaptureTimeSEI.captureTime(inNALUnit: CaptureTimeSEI.hevcNALUnit(capture: time)) == nil)
    }

    @Test func hevcSEIGoesBeforeTheFirstSliceAfterParameterSets() throws {
        // VPS 32, SPS 33, PPS 34, then an IDR_W_RADL (19) slice and a TRAIL_R (1) slice.
        let units: [[UInt8]] = [
            [0x40, 0x01, 0xAA], [0x42, 0x01, 0xBB], [0x44, 0x01, 0xCC], [0x26, 0x01, 0xDD], [0x02, 0x01],
        ]
        let time = CaptureCodecCase.all[0].time
        let out = try CaptureTimeSEI.inserting(capture: time, intoHEVC: units.flatMap(lengthPrefixed))
        let types = try H264.nalUnits(avcc: out).map { HEVC.nalType($0) }
        #expect(types == [32, 33, 34, 39, 19, 1])
        #expect(CaptureTimeSEI.captureTime(inHEVC: out) == time)
    }

    @Test func av1MetadataGoesAfterTheSequenceHeaderBeforeTheFrame() throws {
        // Sequence header (1), a foreign metadata OBU (5, HDR CLL), then a frame (6).
        let tu =
            obu(1, [0x00, 0x00, 0x00]) + obu(5, [0x01, 0x00, 0x10, 0x00, 0x20, 0x80]) + obu(6, [0x10, 0x20, 0x30])
        let time = CaptureCodecCase.all[1].time
        let out = try CaptureTimeOBU.inserting(capture: time, intoTemporalUnit: tu)
        let obus = try AV1OBU.split(out)
        #expect(obus.map(\.type) == [1, 5, 5, 6])
        #expect(Array(obus[1].payload) == [0x01, 0x00, 0x10, 0x00, 0x20, 0x80])
        #expect(CaptureTimeOBU.captureTime(inTemporalUnit: out) == time)
        #expect(CaptureTimeOBU.captureTime(inTemporalUnit: tu) == nil)
    }

    /// Property: any access unit of random NAL units / OBUs, stamped twice, keeps every other unit in order and
    /// exactly one clock, the second.
    @Test func restampingKeepsOneClockAndEveryOtherUnit() throws {
        var rng = SeededRandom(seed: 20)
        for _ in 0..<300 {
            let first = WallTime(nanosecondsSince1970: Int64.random(in: 0...4_000_000_000_000_000, using: &rng) * 1_000)
            let second = WallTime(
                nanosecondsSince1970: Int64.random(in: 0...4_000_000_000_000_000, using: &rng) * 1_000
            )
            // HEVC: non-SEI types only (an SEI of random bytes might hold anything).
            let nals: [[UInt8]] = (0..<Int.random(in: 1...5, using: &rng)).map { _ in
                let type = [UInt8](arrayLiteral: 1, 19, 20, 21, 32, 33, 34, 35).randomElement(using: &rng)!
                return [type << 1, 0x01] + rng.bytes(Int.random(in: 0...40, using: &rng))
            }
            let au = nals.flatMap(lengthPrefixed)
            let twice = try CaptureStamp.inserting(
                second,
                into: try CaptureStamp.inserting(first, into: au, codec: .hevc),
                codec: .hevc
            )
            let units = try H264.nalUnits(avcc: twice)
            #expect(units.filter { HEVC.nalType($0) == 39 }.count == 1)
            #expect(units.filter { HEVC.nalType($0) != 39 }.map(Array.init) == nals)
            #expect(CaptureStamp.read(twice, codec: .hevc) == second)

            let obus: [(UInt8, [UInt8])] = (0..<Int.random(in: 1...5, using: &rng)).map { _ in
                ([1, 3, 4, 6].randomElement(using: &rng)!, rng.bytes(Int.random(in: 0...200, using: &rng)))
            }
            let tu = obus.flatMap { obu($0.0, $0.1) }
            let stamped = try CaptureStamp.inserting(
                second,
                into: try CaptureStamp.inserting(first, into: tu, codec: .av1),
                codec: .av1
            )
            let split = try AV1OBU.split(stamped)
            #expect(split.filter { $0.type == 5 }.count == 1)
            #expect(split.filter { $0.type != 5 }.map { [$0.type] + Array($0.payload) } == obus.map { [$0.0] + $0.1 })
            #expect(CaptureStamp.read(stamped, codec: .av1) == second)
        }
    }

    /// Property: mutated clocks never crash the readers; they yield nil or some time.
    @Test func garbageNeverTraps() {
        var rng = SeededRandom(seed: 39)
        for c in CaptureCodecCase.all {
            for _ in 0..<500 {
                _ = CaptureTimeSEI.captureTime(inHEVCNALUnit: rng.mutate(c.hevcNAL))
                _ = CaptureTimeOBU.captureTime(inTemporalUnit: rng.mutate(c.av1OBU))
                _ = CaptureStamp.read(rng.bytes(Int.random(in: 0...64, using: &rng)), codec: .hevc)
                _ = CaptureStamp.read(rng.bytes(Int.random(in: 0...64, using: &rng)), codec: .av1)
            }
        }
        #expect(throws: CodecFormatError.self) {
            try CaptureTimeOBU.inserting(capture: CaptureCodecCase.all[0].time, intoTemporalUnit: [0x32, 0x7F])
        }
    }
}

/// A NAL unit with a 4-byte big-endian length.
private func lengthPrefixed(_ nal: [UInt8]) -> [UInt8] {
    let n = nal.count
    return [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + nal
}

/// An OBU with has_size_field: obu_size in one leb128 byte below 128, two above.
private func obu(_ type: UInt8, _ payload: [UInt8]) -> [UInt8] {
    let size: [UInt8] =
        payload.count < 128 ? [UInt8(payload.count)] : [UInt8(payload.count & 0x7F) | 0x80, UInt8(payload.count >> 7)]
    return [type << 3 | 0x02] + size + payload
}
