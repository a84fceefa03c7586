/// ITU-T H.265 §7.4.2.2: NAL unit types in length-prefixed access units (the hvcC/E-RTMP framing).
public enum HEVC {
    /// nal_unit_type from the first NAL header byte.
    public static func nalType<C: Collection>(_ nal: C) -> UInt8 where C.Element == UInt8 {
        ((nal.first ?? 0) >> 1) & 0x3F
    }

    /// True when the access unit holds an IRAP picture (BLA, IDR or CRA, types 16…23): a place to start decoding.
    public static func containsIRAP(lengthPrefixed data: [UInt8], lengthSize: Int = 4) -> Bool {
        guard let units = try? H264.nalUnits(avcc: data, lengthSize: lengthSize) else { return false }
        return units.contains { (16...23).contains(nalType($0)) }
    }
}
