/// RFC 8866 §6.6 (rtpmap), §6.15 (fmtp) and RFC 4585 §4.2 (rtcp-fb): one payload type as a media section offers it.
public struct RTPCodec: Equatable, Sendable {
    /// The dynamic or static payload type.
    public var payloadType: UInt8
    /// Encoding name as written (H264, opus, rtx…).
    public var name: String
    /// Clock rate in Hz.
    public var clockRate: Int
    /// Audio channels (1 when absent).
    public var channels: Int
    /// `a=fmtp` parameters in order, keys as written.
    public var parameters: [(key: String, value: String)]
    /// `a=rtcp-fb` values for this payload type (`nack`, `nack pli`, `ccm fir`, `transport-cc`…).
    public var feedback: [String]

    /// A codec.
    public init(
        payloadType: UInt8,
        name: String,
        clockRate: Int,
        channels: Int = 1,
        parameters: [(key: String, value: String)] = [],
        feedback: [String] = []
    ) {
        self.payloadType = payloadType
        self.name = name
        self.clockRate = clockRate
        self.channels = channels
        self.parameters = parameters
        self.feedback = feedback
    }

    public static func == (lhs: RTPCodec, rhs: RTPCodec) -> Bool {
        lhs.payloadType == rhs.payloadType && lhs.name == rhs.name && lhs.clockRate == rhs.clockRate
            && lhs.channels == rhs.channels && lhs.feedback == rhs.feedback
            && lhs.parameters.map(\.key) == rhs.parameters.map(\.key)
            && lhs.parameters.map(\.value) == rhs.parameters.map(\.value)
    }

    /// The value of fmtp parameter `key` (case-insensitive key match).
    public func parameter(_ key: String) -> String? {
        parameters.first { $0.key.lowercased() == key.lowercased() }?.value
    }

    /// The fmtp line value as it would be written (`k=v;k=v`).
    public var fmtpValue: String { parameters.map { "\($0.key)=\($0.value)" }.joined(separator: ";") }

    /// Splits an fmtp value into parameters (RFC 8866 §6.15 leaves the format to the codec; all ours use k=v;k=v).
    static func parseParameters(_ value: String) -> [(key: String, value: String)] {
        value.split(separator: ";").compactMap { pair in
            let trimmed = pair.trimmingSpaces
            guard !trimmed.isEmpty else { return nil }
            guard let eq = trimmed.firstIndex(of: "=") else { return (String(trimmed), "") }
            return (String(trimmed[..<eq]), String(trimmed[trimmed.index(after: eq)...]))
        }
    }

    /// True for H.264 at 90 kHz.
    public var isH264: Bool { name.lowercased() == "h264" && clockRate == 90_000 }

    /// True for Opus at 48 kHz stereo (RFC 7587 §7: always written `opus/48000/2`).
    public var isOpus: Bool { name.lowercased() == "opus" && clockRate == 48_000 && channels == 2 }

    /// RFC 6184 §8.1 packetization-mode (0 when absent).
    public var packetizationMode: Int { parameter("packetization-mode").flatMap { Int($0) } ?? 0 }

    /// RFC 6184 §8.1 profile-level-id as three bytes (profile_idc, constraint flags, level_idc), if well-formed.
    public var profileLevelID: (profile: UInt8, constraints: UInt8, level: UInt8)? {
        guard let text = parameter("profile-level-id"), text.count == 6, let value = UInt32(text, radix: 16) else {
            return nil
        }
        return (UInt8(value >> 16), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
    }

    /// Rank for H.264 choice, lower is better: constrained baseline, baseline, main, high, then anything else.
    var h264Preference: Int {
        guard let id = profileLevelID else { return 5 }
        switch id.profile {
        case 0x42 where id.constraints & 0x40 != 0: return 0
        case 0x42: return 1
        case 0x4D: return 2
        case 0x64: return 3
        default: return 4
        }
    }
}

extension Substring {
    /// The substring without leading and trailing spaces and tabs.
    var trimmingSpaces: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
