/// AV1 spec §5.3 obu_header / §4.10.5 leb128: walking the OBUs of a low-overhead temporal unit.
public struct AV1OBU: Equatable, Sendable {
    /// obu_type (§6.2.2): 1 sequence header, 2 temporal delimiter, 3 frame header, 6 frame...
    public var type: UInt8
    /// The OBU payload after its header and size.
    public var payload: ArraySlice<UInt8>

    /// OBU_SEQUENCE_HEADER.
    public static let sequenceHeader: UInt8 = 1
    /// OBU_FRAME_HEADER.
    public static let frameHeader: UInt8 = 3
    /// OBU_FRAME (frame header + tile group).
    public static let frame: UInt8 = 6

    /// Splits `data` into OBUs; an OBU without obu_has_size_field runs to the end.
    public static func split(_ data: [UInt8]) throws(CodecFormatError) -> [AV1OBU] {
        var obus: [AV1OBU] = []
        var offset = 0
        while offset < data.count {
            let header = data[offset]
            guard header & 0x80 == 0 else { throw .invalidValue(field: "obu_forbidden_bit", value: 1) }
            var cursor = offset + 1 + (header & 0x04 != 0 ? 1 : 0)
            var size = data.count - cursor
            if header & 0x02 != 0 {
                size = try leb128(data, at: &cursor)
            }
            guard cursor <= data.count, size <= data.count - cursor else {
                throw .badNALLength(offset: offset, length: size, available: max(0, data.count - cursor))
            }
            obus.append(AV1OBU(type: (header >> 3) & 0x0F, payload: data[cursor..<cursor + size]))
            offset = cursor + size
        }
        return obus
    }

    /// OBU_TEMPORAL_DELIMITER.
    public static let temporalDelimiter: UInt8 = 2

    /// One OBU with obu_has_size_field set and no extension header (§5.3.1).
    public static func serialize(type: UInt8, payload: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = [(type & 0x0F) << 3 | 0x02]
        var size = payload.count
        repeat {
            let low = UInt8(size & 0x7F)
            size >>= 7
            out.append(size > 0 ? low | 0x80 : low)
        } while size > 0
        return out + payload
    }

    /// The temporal unit without its temporal delimiter OBUs (AV1-ISOBMFF §2.4: samples should not carry them);
    /// the other OBUs are kept byte for byte.
    public static func removingTemporalDelimiters(_ data: [UInt8]) throws(CodecFormatError) -> [UInt8] {
        var out: [UInt8] = []
        var offset = 0
        while offset < data.count {
            let header = data[offset]
            guard header & 0x80 == 0 else { throw .invalidValue(field: "obu_forbidden_bit", value: 1) }
            var cursor = offset + 1 + (header & 0x04 != 0 ? 1 : 0)
            guard cursor <= data.count else { throw .truncated(what: "obu_extension_header") }
            var end = data.count
            if header & 0x02 != 0 {
                let size = try leb128(data, at: &cursor)
                guard cursor <= data.count, size <= data.count - cursor else {
                    throw .badNALLength(offset: offset, length: size, available: max(0, data.count - cursor))
                }
                end = cursor + size
            }
            if (header >> 3) & 0x0F != temporalDelimiter { out += data[offset..<end] }
            offset = end
        }
        return out
    }

    /// §4.10.5: up to eight 7-bit groups, least significant first.
    static func leb128(_ data: [UInt8], at cursor: inout Int) throws(CodecFormatError) -> Int {
        var value = 0
        for i in 0..<8 {
            guard cursor < data.count else { throw .truncated(what: "leb128") }
            let byte = data[cursor]
            cursor += 1
            value |= Int(byte & 0x7F) << (7 * i)
            if byte & 0x80 == 0 { return value }
        }
        throw .invalidValue(field: "leb128", value: value)
    }

    /// True when the temporal unit holds a key frame (§5.9.2: show_existing_frame 0, frame_type KEY_FRAME); a
    /// stream with reduced_still_picture_header is all key frames.
    public static func containsKeyFrame(temporalUnit data: [UInt8], reducedStillPictureHeader: Bool = false) -> Bool {
        guard let obus = try? split(data) else { return false }
        for obu in obus where obu.type == frameHeader || obu.type == frame {
            if reducedStillPictureHeader { return true }
            guard let first = obu.payload.first else { return false }
            // show_existing_frame is the first bit, frame_type the next two.
            return first & 0x80 == 0 && (first >> 5) & 0x03 == 0
        }
        return false
    }
}
