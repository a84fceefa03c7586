import MediaCore

/// FLV AUDIODATA with AACAUDIODATA (FLV spec v10.1 §E.4.2.1): what RTMP audio messages carry.
public enum FLVAudioTag: Equatable, Sendable {
    /// AACPacketType 0: the AudioSpecificConfig.
    case sequenceHeader(audioSpecificConfig: [UInt8])
    /// AACPacketType 1: one raw AAC frame.
    case raw([UInt8])

    /// SoundFormat 10 (AAC), 44 kHz, 16-bit, stereo: the header byte AAC always uses (0xAF).
    static let aacHeader: UInt8 = 0xAF

    /// Parses an audio message body.
    public static func parse(_ body: [UInt8]) throws(FLVError) -> FLVAudioTag {
        guard body.count >= 2 else { throw .truncated(field: "AACAUDIODATA header", size: body.count) }
        let format = body[0] >> 4
        guard format == 10 else { throw .unsupportedAudioFormat(format) }
        let payload = Array(body[2...])
        switch body[1] {
        case 0: return .sequenceHeader(audioSpecificConfig: payload)
        case 1: return .raw(payload)
        case let t: throw .unknownPacketType(t)
        }
    }

    /// Serializes as an audio message body.
    public func serialize() -> [UInt8] {
        switch self {
        case .sequenceHeader(let asc): [Self.aacHeader, 0] + asc
        case .raw(let data): [Self.aacHeader, 1] + data
        }
    }
}
