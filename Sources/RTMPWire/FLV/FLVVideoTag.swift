import MediaCore

/// FLV VIDEODATA with AVCVIDEOPACKET (FLV spec v10.1 §E.4.3.1): what RTMP video messages carry.
public enum FLVVideoTag: Equatable, Sendable {
    /// AVCPacketType 0: the AVCDecoderConfigurationRecord.
    case sequenceHeader(decoderConfiguration: [UInt8])
    /// AVCPacketType 1: length-prefixed NAL units of one access unit.
    case nalUnits(isKeyframe: Bool, compositionTime: Int32, data: [UInt8])
    /// AVCPacketType 2: end of sequence.
    case endOfSequence

    /// FrameType 1 (keyframe) / 2 (inter), CodecID 7 (AVC).
    static let avcCodecID: UInt8 = 7

    /// Parses a video message body.
    public static func parse(_ body: [UInt8]) throws(FLVError) -> FLVVideoTag {
        guard body.count >= 5 else { throw .truncated(field: "AVCVIDEOPACKET header", size: body.count) }
        let frameType = body[0] >> 4
        let codec = body[0] & 0x0F
        guard codec == avcCodecID else { throw .unsupportedVideoCodec(codec) }
        // SI24 composition time offset, sign-extended.
        let raw = Int32(body[2]) << 16 | Int32(body[3]) << 8 | Int32(body[4])
        let cts = raw & 0x80_0000 != 0 ? raw - 0x100_0000 : raw
        let payload = Array(body[5...])
        switch body[1] {
        case 0: return .sequenceHeader(decoderConfiguration: payload)
        case 1: return .nalUnits(isKeyframe: frameType == 1, compositionTime: cts, data: payload)
        case 2: return .endOfSequence
        case let t: throw .unknownPacketType(t)
        }
    }

    /// Serializes as a video message body.
    public func serialize() -> [UInt8] {
        var w = ByteWriter(capacity: 5 + payloadCount)
        switch self {
        case .sequenceHeader(let config):
            w.write([0x10 | Self.avcCodecID, 0, 0, 0, 0])
            w.write(config)
        case .nalUnits(let key, let cts, let data):
            w.write([(key ? 0x10 : 0x20) | Self.avcCodecID, 1])
            w.writeUInt24(UInt32(bitPattern: cts) & 0xFF_FFFF)
            w.write(data)
        case .endOfSequence:
            w.write([0x10 | Self.avcCodecID, 2, 0, 0, 0])
        }
        return w.bytes
    }

    private var payloadCount: Int {
        switch self {
        case .sequenceHeader(let c): c.count
        case .nalUnits(_, _, let d): d.count
        case .endOfSequence: 0
        }
    }
}
