import MediaCore

/// ITU-T H.265 §7.3.2.4 / §D.2.7: the same capture-clock `user_data_unregistered` message (payloadType 5, our UUID and
/// 8-byte microseconds) in a prefix SEI NAL unit (type 39, 2-byte header), for HEVC sources.
extension CaptureTimeSEI {
    /// nal_unit_type of a prefix SEI NAL unit (H.265 Table 7-1).
    public static let hevcPrefixSEIType: UInt8 = 39
    /// nal_unit_type of a suffix SEI NAL unit; FFmpeg reads UDU messages from both.
    public static let hevcSuffixSEIType: UInt8 = 40

    /// A whole prefix SEI NAL unit: header (layer 0, TemporalId 0), one message, rbsp trailing bits, escaped.
    public static func hevcNALUnit(capture: WallTime) -> [UInt8] {
        // forbidden_zero_bit 0, nal_unit_type 39, nuh_layer_id 0, nuh_temporal_id_plus1 1.
        let header: [UInt8] = [hevcPrefixSEIType << 1, 0x01]
        return header + escape([payloadType, UInt8(payloadSize)] + payload(capture: capture) + [0x80])
    }

    /// The capture time in one HEVC SEI NAL unit (prefix or suffix, with its 2-byte header), walking every message.
    public static func captureTime(inHEVCNALUnit nal: some Collection<UInt8>) -> WallTime? {
        let type = HEVC.nalType(nal)
        guard nal.count > 2, type == hevcPrefixSEIType || type == hevcSuffixSEIType else { return nil }
        return captureTime(inMessages: unescape(nal.dropFirst(2)))
    }

    /// The capture time in an HEVC access unit with 4-byte lengths; nil if none or malformed.
    public static func captureTime(inHEVC accessUnit: [UInt8]) -> WallTime? {
        guard let units = try? H264.nalUnits(avcc: accessUnit) else { return nil }
        for unit in units { if let time = captureTime(inHEVCNALUnit: unit) { return time } }
        return nil
    }

    /// The HEVC access unit (4-byte lengths) with our prefix SEI before its first VCL NAL unit (types 0…31, §7.4.2.4.4);
    /// an SEI NAL unit already carrying our clock is dropped, so one clock remains.
    public static func inserting(capture: WallTime, intoHEVC accessUnit: [UInt8]) throws(CodecFormatError) -> [UInt8] {
        let units = try H264.nalUnits(avcc: accessUnit)
        let sei = hevcNALUnit(capture: capture)
        var out: [UInt8] = []
        out.reserveCapacity(accessUnit.count + sei.count + 4)
        var inserted = false
        for unit in units where captureTime(inHEVCNALUnit: unit) == nil {
            if !inserted, HEVC.nalType(unit) < 32 {
                appendLengthPrefixed(sei, to: &out)
                inserted = true
            }
            appendLengthPrefixed(unit, to: &out)
        }
        if !inserted { appendLengthPrefixed(sei, to: &out) }
        return out
    }

    /// The capture time among the sei_message()s of an SEI RBSP (H.264 §7.3.2.3.1, H.265 §7.3.5), trailing bits last.
    static func captureTime(inMessages rbsp: [UInt8]) -> WallTime? {
        var i = 0
        // more_rbsp_data: stop at the trailing bits (a lone 0x80 as the last byte) or the end.
        while i < rbsp.count, !(i == rbsp.count - 1 && rbsp[i] == 0x80) {
            guard let type = readCodedValue(rbsp, at: &i), let size = readCodedValue(rbsp, at: &i),
                size <= rbsp.count - i
            else { return nil }
            if type == Int(payloadType), let time = captureTime(inPayload: rbsp[i..<i + size]) { return time }
            i += size
        }
        return nil
    }

    /// Appends a NAL unit with a 4-byte big-endian length.
    static func appendLengthPrefixed(_ nal: some Collection<UInt8>, to out: inout [UInt8]) {
        let n = nal.count
        out += [
            UInt8(truncatingIfNeeded: n >> 24), UInt8(truncatingIfNeeded: n >> 16),
            UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n),
        ]
        out.append(contentsOf: nal)
    }
}
