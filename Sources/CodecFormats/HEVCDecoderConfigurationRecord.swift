import MediaCore

/// ISO/IEC 14496-15 §8.3.3.1: the `hvcC` record (also the E-RTMP hvc1 SequenceStart) holding VPS, SPS and PPS.
public struct HEVCDecoderConfigurationRecord: Equatable, Sendable {
    /// One array of same-type parameter sets.
    public struct NALArray: Equatable, Sendable {
        /// array_completeness: every parameter set of this type is in the array.
        public var complete: Bool
        /// NAL_unit_type (32 VPS, 33 SPS, 34 PPS, 39/40 SEI).
        public var nalUnitType: UInt8
        /// The NAL units, each with its two-byte NAL header.
        public var nalUnits: [[UInt8]]
    }

    /// The general profile, tier and level (copied from the SPS).
    public var profileTierLevel: HEVCProfileTierLevel
    /// chroma_format_idc (1 is 4:2:0).
    public var chromaFormat: UInt8
    /// bit_depth_luma_minus8.
    public var bitDepthLumaMinus8: UInt8
    /// Bytes in each NAL length prefix: 1, 2 or 4.
    public var nalUnitLengthSize: Int
    /// The parameter set arrays in record order.
    public var arrays: [NALArray]

    /// NAL unit types of the parameter sets (H.265 Table 7-1).
    public static let vpsType: UInt8 = 32
    /// Sequence parameter set.
    public static let spsType: UInt8 = 33
    /// Picture parameter set.
    public static let ppsType: UInt8 = 34

    /// Parses a record.
    public init(parsing bytes: [UInt8]) throws(CodecFormatError) {
        var r = ByteReader(bytes)
        do {
            let version = try r.readUInt8()
            guard version == 1 else { throw CodecFormatError.unsupportedVersion(version) }
            var bits = BitReader(Array(try r.read(count: 12)))
            profileTierLevel = try HEVCProfileTierLevel.read(&bits)
            try r.skip(3)  // min_spatial_segmentation_idc, parallelismType: irrelevant to a packager.
            chromaFormat = try r.readUInt8() & 0x03
            bitDepthLumaMinus8 = try r.readUInt8() & 0x07
            try r.skip(3)  // bitDepthChromaMinus8, avgFrameRate.
            let lengthSize = Int(try r.readUInt8() & 0x03) + 1
            guard lengthSize != 3 else { throw CodecFormatError.invalidLengthSize(3) }
            nalUnitLengthSize = lengthSize
            let arrayCount = Int(try r.readUInt8())
            arrays = []
            for _ in 0..<arrayCount {
                let head = try r.readUInt8()
                let count = Int(try r.readUInt16())
                var units: [[UInt8]] = []
                for _ in 0..<count { units.append(Array(try r.read(count: Int(try r.readUInt16())))) }
                arrays.append(NALArray(complete: head & 0x80 != 0, nalUnitType: head & 0x3F, nalUnits: units))
            }
        } catch let error as CodecFormatError {
            throw error
        } catch {
            throw .truncated(what: "HEVCDecoderConfigurationRecord")
        }
    }

    /// The NAL units of one type across all arrays.
    public func nalUnits(ofType type: UInt8) -> [[UInt8]] {
        arrays.filter { $0.nalUnitType == type }.flatMap(\.nalUnits)
    }

    /// The record with a different NAL length size (only the lengthSizeMinusOne bits change).
    public static func withLengthSize(_ bytes: [UInt8], _ size: Int) -> [UInt8] {
        guard bytes.count > 21 else { return bytes }
        var out = bytes
        out[21] = out[21] & 0xFC | UInt8(size - 1)
        return out
    }

    /// CODECS string from the record's profile_tier_level.
    public var codecString: String { profileTierLevel.codecString() }
}
