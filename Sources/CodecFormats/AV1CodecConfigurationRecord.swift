/// AV1 Codec ISO Media File Format Binding §2.3.3: the `av1C` record (also the E-RTMP av01 SequenceStart).
public struct AV1CodecConfigurationRecord: Equatable, Sendable {
    /// seq_profile.
    public var profile: UInt8
    /// seq_level_idx_0.
    public var levelIndex: UInt8
    /// seq_tier_0: true High tier.
    public var highTier: Bool
    /// high_bitdepth.
    public var highBitDepth: Bool
    /// twelve_bit.
    public var twelveBit: Bool
    /// monochrome.
    public var monochrome: Bool
    /// configOBUs: the sequence header OBU (and any metadata OBUs), low-overhead format.
    public var configOBUs: [UInt8]

    /// Parses a record; marker 1 and version 1 are required (§2.3.3).
    public init(parsing bytes: [UInt8]) throws(CodecFormatError) {
        guard bytes.count >= 4 else { throw .truncated(what: "AV1CodecConfigurationRecord") }
        guard bytes[0] == 0x81 else { throw .unsupportedVersion(bytes[0]) }
        profile = bytes[1] >> 5
        levelIndex = bytes[1] & 0x1F
        highTier = bytes[2] & 0x80 != 0
        highBitDepth = bytes[2] & 0x40 != 0
        twelveBit = bytes[2] & 0x20 != 0
        monochrome = bytes[2] & 0x10 != 0
        configOBUs = Array(bytes[4...])
    }

    /// Bits per sample: 8, 10 or 12.
    public var bitDepth: Int { highBitDepth ? (twelveBit ? 12 : 10) : 8 }

    /// The sequence header inside configOBUs.
    public func sequenceHeader() throws(CodecFormatError) -> AV1SequenceHeader {
        guard let obu = try AV1OBU.split(configOBUs).first(where: { $0.type == AV1OBU.sequenceHeader }) else {
            throw .missingSPS
        }
        return try AV1SequenceHeader(parsing: obu.payload)
    }

    /// AV1 ISOBMFF binding Annex "Codecs Parameter String": `av01.P.LLT.DD` (e.g. `av01.0.04M.08`).
    public var codecString: String {
        let level = levelIndex < 10 ? "0\(levelIndex)" : "\(levelIndex)"
        let depth = bitDepth < 10 ? "0\(bitDepth)" : "\(bitDepth)"
        return "av01.\(profile).\(level)\(highTier ? "H" : "M").\(depth)"
    }
}
