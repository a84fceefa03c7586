/// RFC 6184 §8.1 `profile-level-id`: profile_idc, the constraint-flag byte (profile-iop) and level_idc, and which
/// bitstream profiles a receiver that signals one can decode (H.264 Annex A.2 profile inclusions).
public struct H264ProfileLevelID: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// profile_idc (66 baseline, 77 main, 100 high, 244 high 4:4:4 predictive…).
    public var profileIdc: UInt8
    /// constraint_set0…5 flags, most significant bit first.
    public var constraints: UInt8
    /// level_idc (31 = level 3.1).
    public var levelIdc: UInt8

    /// A profile-level-id from its three bytes.
    public init(profileIdc: UInt8, constraints: UInt8, levelIdc: UInt8) {
        self.profileIdc = profileIdc
        self.constraints = constraints
        self.levelIdc = levelIdc
    }

    /// The six hex digits of an fmtp value (`42e01f`); nil when malformed.
    public init?(hex: String) {
        guard hex.count == 6, let value = UInt32(hex, radix: 16) else { return nil }
        self.init(
            profileIdc: UInt8(value >> 16),
            constraints: UInt8((value >> 8) & 0xFF),
            levelIdc: UInt8(value & 0xFF)
        )
    }

    /// ISO/IEC 14496-15 §5.3.3.1: bytes 1…3 of an AVCDecoderConfigurationRecord copy the SPS's three bytes.
    public init?(avcC: [UInt8]) {
        guard avcC.count >= 4, avcC[0] == 1 else { return nil }
        self.init(profileIdc: avcC[1], constraints: avcC[2], levelIdc: avcC[3])
    }

    /// The profile-level-id of an RTP codec's fmtp; RFC 6184 §8.1 makes an absent one mean 420010 (baseline 1.0).
    public init?(codec: RTPCodec) {
        guard let text = codec.parameter("profile-level-id") else {
            self.init(profileIdc: 0x42, constraints: 0, levelIdc: 0x10)
            return
        }
        self.init(hex: text)
    }

    /// Six lowercase hex digits.
    public var description: String {
        let value = UInt32(profileIdc) << 16 | UInt32(constraints) << 8 | UInt32(levelIdc)
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 6 - text.count) + text
    }

    /// The profile family these bytes name (libwebrtc's reading of the constraint flags); nil for others.
    public var profile: H264Profile? {
        let set0 = constraints & 0x80 != 0
        let set1 = constraints & 0x40 != 0
        switch profileIdc {
        case 0x42: return set1 ? .constrainedBaseline : .baseline
        case 0x4D: return set0 ? .constrainedBaseline : .main
        case 0x58: return set0 && set1 ? .constrainedBaseline : nil
        // constraint_set4 + set5 on High: no B-slices and frame-only (constrained high).
        case 0x64: return constraints & 0x0C == 0x0C ? .constrainedHigh : .high
        case 0xF4: return .high444Predictive
        default: return nil
        }
    }

    /// True when a receiver that signalled `self` can decode a bitstream of `stream`'s profile (levels are not
    /// compared: browsers decode above the level they list, and WHEP offers carry `level-asymmetry-allowed=1`).
    public func receives(_ stream: H264ProfileLevelID) -> Bool {
        guard let receiver = profile, let sent = stream.profile else { return false }
        return receiver.decodes(sent)
    }
}

/// H.264 profiles a WebRTC endpoint signals; Annex A.2 says which decoders conform to which bitstreams.
public enum H264Profile: Sendable, Hashable {
    case constrainedBaseline
    case baseline
    case main
    case constrainedHigh
    case high
    case high444Predictive

    /// Position on the baseline ⊂ main ⊂ high ⊂ high 4:4:4 line (plain baseline sits beside it).
    private var rank: Int {
        switch self {
        case .constrainedBaseline: 0
        case .baseline: -1
        case .main: 1
        case .constrainedHigh: 2
        case .high: 3
        case .high444Predictive: 4
        }
    }

    /// A.2.1–A.2.11: a decoder of this profile decodes `stream` (constrained baseline fits every decoder; plain
    /// baseline, with FMO/ASO, only a baseline decoder).
    public func decodes(_ stream: H264Profile) -> Bool {
        if stream == .constrainedBaseline { return true }
        if stream == .baseline || self == .baseline { return self == stream }
        return stream.rank <= rank
    }
}
