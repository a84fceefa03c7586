/// Walking an AVCC access unit's SEI NAL units (ITU-T H.264 §7.3.2.3), for the SEI readers of this module.
extension H264 {
    /// The first value `read` finds in an SEI NAL unit of an access unit with 4-byte AVCC lengths, or nil.
    /// `pastSlices` false stops at the first slice: SEI that must precede the picture's slices is not looked for
    /// after them. Broken framing ends the walk where it breaks.
    static func firstInSEI<T>(
        avcc bytes: [UInt8],
        pastSlices: Bool = true,
        _ read: (ArraySlice<UInt8>) -> T?
    ) -> T? {
        var offset = 0
        while bytes.count - offset >= 4 {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let start = offset + 4
            guard length <= bytes.count - start else { return nil }
            let nal = bytes[start..<start + length]
            if nalType(nal) == H264NALUnitType.sei.rawValue, let value = read(nal) { return value }
            if !pastSlices, (1...5).contains(nalType(nal)) { return nil }
            offset = start + length
        }
        return nil
    }
}
