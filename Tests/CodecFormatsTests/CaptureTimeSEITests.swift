import CodecFormats
import MediaCore
import TestSupport
import Testing

/// One capture time and its SEI NAL unit, bytes worked out by hand from H.264 D.1.1/D.1.7 and 7.4.1.
struct CaptureSEICase: CustomTestStringConvertible, Sendable {
    let name: String
    let micros: Int64
    let nal: [UInt8]
    var testDescription: String { name }

    /// NAL header 06, payloadType 05, payloadSize 0x18 (24), then the UUID.
    static let head = hex("06 05 18 5C1ECE7A 3B414D9E B26F8AC4 17D5E92B")

    static let all: [CaptureSEICase] = [
        // 0x0006_4370_6CBF_1240: one zero at a time, so no emulation prevention.
        CaptureSEICase(
            name: "2025-11-13, no escaping",
            micros: 1_763_000_000_123_456,
            nal: head + hex("00 06 43 70 6C BF 12 40 80")
        ),
        // 0x0006_1234_0000_0102: 00 00 01 would read as a start code, so 03 goes before the 01.
        CaptureSEICase(
            name: "00 00 01 inside the clock",
            micros: 0x0006_1234_0000_0102,
            nal: head + hex("00 06 12 34 00 00 03 01 02 80")
        ),
        // Eight zero bytes: 03 after every second zero; the trailing 0x80 needs none.
        CaptureSEICase(
            name: "the epoch",
            micros: 0,
            nal: head + hex("00 00 03 00 00 03 00 00 03 00 00 80")
        ),
        // 00 00 00 00 00 00 00 03: the last 03 follows a single zero, so it stays as is.
        CaptureSEICase(
            name: "3 microseconds",
            micros: 3,
            nal: head + hex("00 00 03 00 00 03 00 00 03 00 03 80")
        ),
    ]
}

/// The capture clock SEI: bytes, AVCC/Annex B scanning, insertion before the first slice, and garbage input.
@Suite struct CaptureTimeSEITests {
    @Test(arguments: CaptureSEICase.all) func encodesTheGoldenBytes(_ c: CaptureSEICase) {
        #expect(CaptureTimeSEI.nalUnit(capture: WallTime(nanosecondsSince1970: c.micros * 1_000)) == c.nal)
    }

    @Test(arguments: CaptureSEICase.all) func decodesTheGoldenBytes(_ c: CaptureSEICase) {
        #expect(CaptureTimeSEI.captureTime(inNALUnit: c.nal) == WallTime(nanosecondsSince1970: c.micros * 1_000))
    }

    @Test func truncatesNanosecondsToMicroseconds() {
        let nal = CaptureTimeSEI.nalUnit(capture: WallTime(nanosecondsSince1970: 1_763_000_000_123_456_789))
        #expect(nal == CaptureSEICase.all[0].nal)
    }

    @Test func findsOurMessageAfterOtherSEIMessages() {
        let other = [UInt8](repeating: 0xAB, count: 300)
        // payloadType 5 of another UUID, size 300 coded FF 2D; then payloadType 1 (pic timing); then ours.
        var rbsp: [UInt8] = [0x05, 0xFF, 0x2D] + other
        rbsp += [0x01, 0x02, 0x11, 0x22]
        rbsp += [0x05, 0x18] + CaptureTimeSEI.payload(capture: WallTime(nanosecondsSince1970: 42_000))
        let nal = [0x06] + rbsp + [0x80]
        #expect(CaptureTimeSEI.captureTime(inNALUnit: nal) == WallTime(nanosecondsSince1970: 42_000))
    }

    @Test func ignoresAnotherUUIDAndOtherNALTypes() {
        var foreign = CaptureTimeSEI.nalUnit(capture: WallTime(nanosecondsSince1970: 5_000))
        foreign[3] ^= 0x01
        #expect(CaptureTimeSEI.captureTime(inNALUnit: foreign) == nil)
        var slice = CaptureTimeSEI.nalUnit(capture: WallTime(nanosecondsSince1970: 5_000))
        slice[0] = 0x65
        #expect(CaptureTimeSEI.captureTime(inNALUnit: slice) == nil)
        #expect(CaptureTimeSEI.captureTime(inNALUnit: [UInt8]()) == nil)
    }

    @Test func readsTheClockFromAVCCAndAnnexBAccessUnits() throws {
        let time = WallTime(nanosecondsSince1970: 0x0006_1234_0000_0102 * 1_000)
        let nals: [[UInt8]] = [
            [0x09, 0xF0], [0x67, 0x64, 0x00, 0x1F], [0x68, 0xEE], CaptureTimeSEI.nalUnit(capture: time),
            [0x65, 0x88, 0x84, 0x00],
        ]
        let annexB: [UInt8] = nals.flatMap { [0, 0, 0, 1] + $0 }
        #expect(CaptureTimeSEI.captureTime(inAVCC: H264.avcc(fromAnnexB: annexB)) == time)
        #expect(CaptureTimeSEI.captureTime(inAnnexB: annexB) == time)
        #expect(CaptureTimeSEI.captureTime(inAVCC: H264.avcc(fromAnnexB: [0, 0, 1, 0x65, 0x88])) == nil)
    }

    @Test func insertsBeforeTheFirstSliceAndReplacesAnEarlierClock() throws {
        let time = WallTime(nanosecondsSince1970: 1_000_000)
        let head: [[UInt8]] = [[0x09, 0xF0], [0x67, 0x64], [0x68, 0xEE], [0x06, 0x01, 0x01, 0x00, 0x80]]
        let slices: [[UInt8]] = [[0x65, 0x88], [0x65, 0x99]]
        let au = H264.avcc(fromAnnexB: (head + slices).flatMap { [UInt8]([0, 0, 0, 1]) + $0 })
        let out = try CaptureTimeSEI.inserting(capture: time, intoAVCC: au)
        #expect(try H264.nalUnits(avcc: out).map(Array.init) == head + [CaptureTimeSEI.nalUnit(capture: time)] + slices)
        #expect(CaptureTimeSEI.captureTime(inAVCC: out) == time)
        let again = try CaptureTimeSEI.inserting(capture: WallTime(nanosecondsSince1970: 9_000), intoAVCC: out)
        #expect(try H264.nalUnits(avcc: again).count == head.count + 1 + slices.count)
        #expect(CaptureTimeSEI.captureTime(inAVCC: again) == WallTime(nanosecondsSince1970: 9_000))
        #expect(throws: CodecFormatError.self) {
            try CaptureTimeSEI.inserting(capture: time, intoAVCC: [0, 0, 0, 9, 1])
        }
    }

    @Test func roundTripsRandomTimesThroughRandomAccessUnits() throws {
        var rng = SeededRandom(seed: 0x5E1_C10C)
        for _ in 0..<2_000 {
            let micros = Int64.random(in: 0...(Int64.max / 1_000), using: &rng)
            let time = WallTime(nanosecondsSince1970: micros * 1_000)
            let nal = CaptureTimeSEI.nalUnit(capture: time)
            // No start code may appear inside an escaped NAL unit (7.4.1).
            #expect(!nal.windows(ofCount: 3).contains { $0.elementsEqual([0, 0, 1]) || $0.elementsEqual([0, 0, 0]) })
            #expect(CaptureTimeSEI.captureTime(inNALUnit: nal) == time)
            let slices = (0..<Int.random(in: 1...3, using: &rng)).map { _ in
                [0x41] + rng.bytes(Int.random(in: 1...40, using: &rng))
            }
            let au = slices.flatMap { s -> [UInt8] in [0, 0, 0, UInt8(s.count)] + s }
            #expect(
                CaptureTimeSEI.captureTime(inAVCC: try CaptureTimeSEI.inserting(capture: time, intoAVCC: au)) == time
            )
        }
    }

    @Test func randomAndMutatedInputNeverCrashes() {
        var rng = SeededRandom(seed: 0xBAD_5E1)
        let nal = CaptureTimeSEI.nalUnit(capture: WallTime(nanosecondsSince1970: 1_763_000_000_000_000))
        let valid = [0, 0, 0, UInt8(nal.count)] + nal
        var found = 0
        for _ in 0..<5_000 {
            let garbage = rng.bytes(Int.random(in: 0...64, using: &rng))
            _ = CaptureTimeSEI.captureTime(inAVCC: garbage)
            _ = CaptureTimeSEI.captureTime(inNALUnit: [0x06] + garbage)
            _ = CaptureTimeSEI.captureTime(inAnnexB: [0, 0, 1, 0x06] + garbage)
            if CaptureTimeSEI.captureTime(inAVCC: rng.mutate(valid)) != nil { found += 1 }
        }
        // Appending bytes keeps the message intact often enough; damage elsewhere is rejected, not crashed on.
        #expect(found > 0)
    }
}

extension Array {
    /// Overlapping windows of `count` elements.
    fileprivate func windows(ofCount count: Int) -> [ArraySlice<Element>] {
        guard self.count >= count else { return [] }
        return (0...(self.count - count)).map { self[$0..<$0 + count] }
    }
}
