import MediaCore

/// ITU-T H.264 D.1.7/D.2.7: a `user_data_unregistered` SEI (payloadType 5) carrying the publisher's capture clock.
///
/// Payload: our 16-byte UUID, then 8 bytes big-endian microseconds since the Unix epoch.
public enum CaptureTimeSEI {
    /// The `uuid_iso_iec_11578` that marks Sluice's capture clock (fixed; random v4, no zero bytes).
    public static let uuid: [UInt8] = [
        0x5C, 0x1E, 0xCE, 0x7A, 0x3B, 0x41, 0x4D, 0x9E, 0xB2, 0x6F, 0x8A, 0xC4, 0x17, 0xD5, 0xE9, 0x2B,
    ]

    /// SEI payloadType of `user_data_unregistered` (H.264 D.1.1).
    public static let payloadType: UInt8 = 5

    /// UUID + 8-byte user data.
    public static let payloadSize = 24

    /// The SEI message payload (UUID + big-endian microseconds), as FFmpeg exports it in UDU side data.
    public static func payload(capture: WallTime) -> [UInt8] {
        let micros = UInt64(bitPattern: capture.nanosecondsSince1970 / 1_000)
        return uuid + (0..<8).reversed().map { UInt8(truncatingIfNeeded: micros >> (8 * $0)) }
    }

    /// A whole SEI NAL unit: header 0x06, one message, rbsp trailing bits, emulation prevention (7.4.1).
    public static func nalUnit(capture: WallTime) -> [UInt8] {
        // nal_ref_idc 0, nal_unit_type 6; payloadType and payloadSize each fit one byte (< 255).
        let rbsp = [payloadType, UInt8(payloadSize)] + payload(capture: capture) + [0x80]
        return [0x06] + escape(rbsp)
    }

    /// The capture time in a UDU payload (UUID + user data), e.g. `DecodedPicture.userDataUnregistered`.
    public static func captureTime(inPayload payload: some Collection<UInt8>) -> WallTime? {
        guard payload.count == payloadSize, payload.starts(with: uuid) else { return nil }
        let micros = payload.dropFirst(16).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        // Microseconds beyond Int64 nanoseconds (year 2262) are garbage, not a time.
        guard micros <= UInt64(Int64.max / 1_000) else { return nil }
        return WallTime(nanosecondsSince1970: Int64(micros) * 1_000)
    }

    /// The capture time in one SEI NAL unit (with header, escaped), walking every SEI message; nil if absent.
    public static func captureTime(inNALUnit nal: some Collection<UInt8>) -> WallTime? {
        guard let header = nal.first, header & 0x1F == H264NALUnitType.sei.rawValue else { return nil }
        return captureTime(inMessages: unescape(nal.dropFirst()))
    }

    /// The capture time in an access unit with 4-byte AVCC lengths; nil if none or malformed.
    public static func captureTime(inAVCC accessUnit: some Collection<UInt8>) -> WallTime? {
        H264.firstInSEI(avcc: Array(accessUnit)) { captureTime(inNALUnit: $0) }
    }

    /// The capture time in any SEI NAL unit of an Annex B access unit (start codes), e.g. from MPEG-TS PES.
    public static func captureTime(inAnnexB accessUnit: [UInt8]) -> WallTime? {
        for nal in H264.nalUnits(annexB: accessUnit) where H264.nalType(nal) == H264NALUnitType.sei.rawValue {
            if let time = captureTime(inNALUnit: nal) { return time }
        }
        return nil
    }

    /// The access unit (4-byte AVCC lengths) with our SEI inserted before its first VCL NAL unit (7.4.1.2.3).
    ///
    /// An SEI NAL unit that already carries our clock (a re-published recording) is dropped, so one clock remains.
    public static func inserting(capture: WallTime, intoAVCC accessUnit: [UInt8]) throws(CodecFormatError) -> [UInt8] {
        let units = try H264.nalUnits(avcc: accessUnit)
        let sei = nalUnit(capture: capture)
        var out: [UInt8] = []
        out.reserveCapacity(accessUnit.count + sei.count + 4)
        var inserted = false
        for unit in units where captureTime(inNALUnit: unit) == nil {
            // VCL NAL units are types 1...5; SEI must precede the primary coded picture's first slice.
            if !inserted, (1...5).contains(H264.nalType(unit)) {
                appendLengthPrefixed(sei, to: &out)
                inserted = true
            }
            appendLengthPrefixed(unit, to: &out)
        }
        if !inserted { appendLengthPrefixed(sei, to: &out) }
        return out
    }

    /// Inserts emulation_prevention_three_byte wherever 00 00 is followed by 00..03 (7.4.1).
    static func escape(_ rbsp: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(rbsp.count + 4)
        var zeros = 0
        for byte in rbsp {
            if zeros >= 2 && byte <= 3 {
                out.append(3)
                zeros = 0
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// Drops each emulation_prevention_three_byte (00 00 03 → 00 00).
    static func unescape(_ ebsp: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(ebsp.count)
        var zeros = 0
        for byte in ebsp {
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// payloadType/payloadSize coding (D.1.1): a run of 0xFF bytes adds 255 each, then a last byte; nil if cut.
    static func readCodedValue(_ rbsp: [UInt8], at i: inout Int) -> Int? {
        var value = 0
        while i < rbsp.count, rbsp[i] == 0xFF {
            value += 255
            i += 1
        }
        guard i < rbsp.count else { return nil }
        value += Int(rbsp[i])
        i += 1
        return value
    }
}
