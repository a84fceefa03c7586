import MediaCore

/// AV1 spec §5.8.1 metadata_obu / §5.8.2 metadata_itut_t35: the capture clock of an AV1 source, one OBU_METADATA of
/// type ITU-T T.35 per temporal unit.
///
/// OBU: header 0x2A (type 5, has_size_field), leb128 size, metadata_type 4, country code 0xB5, then the same 24 bytes
/// as the H.264/HEVC SEI (our UUID + big-endian microseconds) and trailing bits 0x80. The UUID, not the country
/// code, marks the clock: the first two payload bytes (0x5C 0x1E) match no registered T.35 provider a decoder acts on.
public enum CaptureTimeOBU {
    /// obu_type of OBU_METADATA (§6.2.2).
    public static let obuType: UInt8 = 5
    /// metadata_type METADATA_TYPE_ITUT_T35 (§6.7.1).
    public static let metadataType: UInt8 = 4
    /// itu_t_t35_country_code: United States (T.35 Annex A).
    public static let countryCode: UInt8 = 0xB5

    /// The whole OBU for `capture`.
    public static func obu(capture: WallTime) -> [UInt8] {
        let body = [metadataType, countryCode] + CaptureTimeSEI.payload(capture: capture) + [0x80]
        // 28 bytes: obu_size fits one leb128 byte.
        return [obuType << 3 | 0x02, UInt8(body.count)] + body
    }

    /// The capture time in one OBU's payload (after header and size), if it is our T.35 metadata.
    public static func captureTime(inPayload payload: ArraySlice<UInt8>) -> WallTime? {
        let bytes = Array(payload)
        var i = 0
        guard let type = try? AV1OBU.leb128(bytes, at: &i), type == Int(metadataType), i < bytes.count,
            bytes[i] == countryCode, bytes.count - (i + 1) >= CaptureTimeSEI.payloadSize
        else { return nil }
        return CaptureTimeSEI.captureTime(inPayload: bytes[(i + 1)..<(i + 1 + CaptureTimeSEI.payloadSize)])
    }

    /// The capture time in a temporal unit of low-overhead OBUs; nil if none or malformed.
    public static func captureTime(inTemporalUnit data: [UInt8]) -> WallTime? {
        guard let obus = try? AV1OBU.split(data) else { return nil }
        for obu in obus where obu.type == obuType {
            if let time = captureTime(inPayload: obu.payload) { return time }
        }
        return nil
    }

    /// The temporal unit with our metadata OBU before its first frame header, frame or tile group OBU (§7.5: metadata
    /// precedes the frame it belongs to); a metadata OBU already carrying our clock is dropped, so one clock remains.
    public static func inserting(capture: WallTime, intoTemporalUnit data: [UInt8]) throws(CodecFormatError) -> [UInt8]
    {
        let obus = try AV1OBU.split(data)
        let metadata = obu(capture: capture)
        var out: [UInt8] = []
        out.reserveCapacity(data.count + metadata.count)
        var inserted = false
        var start = data.startIndex
        for o in obus {
            let end = o.payload.endIndex
            defer { start = end }
            if o.type == obuType, captureTime(inPayload: o.payload) != nil { continue }
            // OBU_FRAME_HEADER 3, OBU_TILE_GROUP 4, OBU_FRAME 6, OBU_REDUNDANT_FRAME_HEADER 7; an OBU without
            // obu_has_size_field runs to the end, so nothing can follow it.
            if !inserted, [3, 4, 6, 7].contains(o.type) || data[start] & 0x02 == 0 {
                out += metadata
                inserted = true
            }
            out.append(contentsOf: data[start..<end])
        }
        if !inserted { out += metadata }
        return out
    }
}
