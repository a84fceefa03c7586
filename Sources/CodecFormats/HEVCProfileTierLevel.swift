/// ITU-T H.265 §7.3.3 profile_tier_level, general part: what hvcC copies and what the CODECS string names.
public struct HEVCProfileTierLevel: Equatable, Sendable {
    /// general_profile_space (0 for every profile in use).
    public var profileSpace: UInt8
    /// general_tier_flag: false Main tier, true High tier.
    public var highTier: Bool
    /// general_profile_idc (1 Main, 2 Main 10, 3 Main Still Picture, 4 RExt).
    public var profileIdc: UInt8
    /// general_profile_compatibility_flag[0…31], flag j at bit 31 - j.
    public var compatibilityFlags: UInt32
    /// The 48 bits from general_progressive_source_flag to general_inbld_flag, big-endian in the low 48 bits.
    public var constraintFlags: UInt64
    /// general_level_idc: 30 × the level number (93 is level 3.1).
    public var levelIdc: UInt8

    /// Creates the general profile, tier and level.
    public init(
        profileSpace: UInt8,
        highTier: Bool,
        profileIdc: UInt8,
        compatibilityFlags: UInt32,
        constraintFlags: UInt64,
        levelIdc: UInt8
    ) {
        self.profileSpace = profileSpace
        self.highTier = highTier
        self.profileIdc = profileIdc
        self.compatibilityFlags = compatibilityFlags
        self.constraintFlags = constraintFlags
        self.levelIdc = levelIdc
    }

    /// ISO/IEC 14496-15 Annex E.3 / RFC 6381: `hvc1.P.C.Lxx.Bx`, compatibility bits reversed, trailing zero
    /// constraint bytes dropped (e.g. `hvc1.1.6.L93.B0`).
    public func codecString(sampleEntry: String = "hvc1") -> String {
        let space = ["", "A", "B", "C"][Int(profileSpace & 3)]
        var reversed: UInt32 = 0
        for bit in 0..<32 where compatibilityFlags & (1 << bit) != 0 { reversed |= 1 << (31 - bit) }
        var bytes = (0..<6).map { UInt8(truncatingIfNeeded: constraintFlags >> (40 - 8 * $0)) }
        while bytes.last == 0 { bytes.removeLast() }
        let constraints = bytes.map { "." + String($0, radix: 16, uppercase: true) }.joined()
        let tier = highTier ? "H" : "L"
        return "\(sampleEntry).\(space)\(profileIdc).\(String(reversed, radix: 16, uppercase: true)).\(tier)\(levelIdc)"
            + constraints
    }

    /// Reads the general part (96 bits) from an SPS/VPS bit reader.
    static func read(_ r: inout BitReader) throws(CodecFormatError) -> HEVCProfileTierLevel {
        let profileSpace = UInt8(try r.readBits(2, "general_profile_space"))
        let highTier = try r.readFlag("general_tier_flag")
        let profileIdc = UInt8(try r.readBits(5, "general_profile_idc"))
        let compatibility = try r.readBits(32, "general_profile_compatibility_flags")
        let high = UInt64(try r.readBits(16, "general_constraint_flags"))
        let low = UInt64(try r.readBits(32, "general_constraint_flags"))
        let level = UInt8(try r.readBits(8, "general_level_idc"))
        return HEVCProfileTierLevel(
            profileSpace: profileSpace,
            highTier: highTier,
            profileIdc: profileIdc,
            compatibilityFlags: compatibility,
            constraintFlags: high << 32 | low,
            levelIdc: level
        )
    }
}
