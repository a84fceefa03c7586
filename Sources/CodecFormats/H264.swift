/// ITU-T H.264 Table 7-1: the NAL unit types Sluice looks at.
public enum H264NALUnitType: UInt8, Sendable {
    case nonIDR = 1
    case partitionA = 2
    case partitionB = 3
    case partitionC = 4
    case idr = 5
    case sei = 6
    case sps = 7
    case pps = 8
    case aud = 9
    case endOfSequence = 10
    case endOfStream = 11
    case filler = 12
    case spsExtension = 13
}

/// H.264 NAL unit framing: AVCC length prefixes (ISO/IEC 14496-15 §5.3.4.2) and Annex B start codes (§B.1).
public enum H264 {
    /// Splits length-prefixed NAL units; empty NAL units are skipped.
    public static func nalUnits(avcc data: [UInt8], lengthSize: Int = 4) throws(CodecFormatError) -> [ArraySlice<UInt8>]
    {
        guard (1...4).contains(lengthSize) else { throw .invalidLengthSize(lengthSize) }
        var units: [ArraySlice<UInt8>] = []
        var offset = 0
        while offset < data.count {
            guard data.count - offset >= lengthSize else {
                throw .badNALLength(offset: offset, length: lengthSize, available: data.count - offset)
            }
            let length = data[offset..<offset + lengthSize].reduce(0) { $0 << 8 | Int($1) }
            let start = offset + lengthSize
            guard length <= data.count - start else {
                throw .badNALLength(offset: offset, length: length, available: data.count - start)
            }
            if length > 0 { units.append(data[start..<start + length]) }
            offset = start + length
        }
        return units
    }

    /// Splits an Annex B byte stream at 3- and 4-byte start codes; trailing zero bytes are dropped (§B.2).
    public static func nalUnits(annexB data: [UInt8]) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        var nalStart: Int?
        var i = 0
        func close(at end: Int) {
            guard let start = nalStart else { return }
            var last = end
            while last > start && data[last - 1] == 0 { last -= 1 }
            if last > start { units.append(data[start..<last]) }
        }
        while i + 2 < data.count {
            if data[i] == 0 && data[i + 1] == 0 && data[i + 2] == 1 {
                close(at: i)
                i += 3
                nalStart = i
            } else {
                i += 1
            }
        }
        close(at: data.count)
        return units
    }

    /// Re-frames an Annex B stream with 4-byte length prefixes.
    public static func avcc(fromAnnexB data: [UInt8]) -> [UInt8] {
        let units = nalUnits(annexB: data)
        var out: [UInt8] = []
        out.reserveCapacity(data.count + units.count)
        for unit in units {
            appendLength(unit.count, size: 4, to: &out)
            out.append(contentsOf: unit)
        }
        return out
    }

    /// Re-frames length-prefixed NAL units with 4-byte start codes.
    public static func annexB(fromAVCC data: [UInt8], lengthSize: Int = 4) throws(CodecFormatError) -> [UInt8] {
        let units = try nalUnits(avcc: data, lengthSize: lengthSize)
        var out: [UInt8] = []
        out.reserveCapacity(data.count + units.count * 4)
        for unit in units {
            out.append(contentsOf: [0, 0, 0, 1])
            out.append(contentsOf: unit)
        }
        return out
    }

    /// True when any NAL unit is an IDR slice; malformed input counts as no IDR.
    public static func containsIDR(avcc data: [UInt8], lengthSize: Int = 4) -> Bool {
        guard let units = try? nalUnits(avcc: data, lengthSize: lengthSize) else { return false }
        return units.contains { nalType($0) == H264NALUnitType.idr.rawValue }
    }

    /// Rewrites length prefixes from `from` bytes to `to` bytes (e.g. FLV 2-byte lengths to 4).
    public static func convertLengthPrefix(_ data: [UInt8], from: Int, to: Int) throws(CodecFormatError) -> [UInt8] {
        guard (1...4).contains(to) else { throw .invalidLengthSize(to) }
        let units = try nalUnits(avcc: data, lengthSize: from)
        if from == to { return data }
        var out: [UInt8] = []
        out.reserveCapacity(data.count + units.count * max(0, to - from))
        for unit in units {
            guard unit.count < 1 << (8 * to) else { throw .nalTooLarge(length: unit.count, lengthSize: to) }
            appendLength(unit.count, size: to, to: &out)
            out.append(contentsOf: unit)
        }
        return out
    }

    /// nal_unit_type: the low 5 bits of the NAL header; 0 for an empty unit.
    public static func nalType(_ nal: ArraySlice<UInt8>) -> UInt8 { (nal.first ?? 0) & 0x1F }

    /// Appends `value` big-endian in `size` bytes.
    private static func appendLength(_ value: Int, size: Int, to out: inout [UInt8]) {
        for shift in stride(from: 8 * (size - 1), through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }
}
