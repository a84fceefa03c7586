import MediaCore

/// RTMP 1.0 §5.4 (protocol control) and §7.1 (RTMP messages): a raw message's payload, interpreted.
public enum RTMPMessage: Equatable, Sendable {
    /// Type 1 (§5.4.1): the sender's new chunk size.
    case setChunkSize(UInt32)
    /// Type 2 (§5.4.2): drop the partial message on a chunk stream.
    case abort(chunkStreamID: UInt32)
    /// Type 3 (§5.4.3): bytes received so far.
    case acknowledgement(sequenceNumber: UInt32)
    /// Type 4 (§7.1.7): a user control event.
    case userControl(UserControlEvent)
    /// Type 5 (§5.4.4): acknowledge after this many bytes.
    case windowAcknowledgementSize(UInt32)
    /// Type 6 (§5.4.5): limit the peer's output bandwidth.
    case setPeerBandwidth(size: UInt32, limitType: PeerBandwidthLimit)
    /// Type 8 (§7.1.4): an FLV audio tag body.
    case audio([UInt8])
    /// Type 9 (§7.1.5): an FLV video tag body.
    case video([UInt8])
    /// Type 18 (§7.1.2): AMF0 data, e.g. `@setDataFrame` + `onMetaData`.
    case data([AMF0Value])
    /// Type 20 (§7.1.1): an AMF0 command.
    case command([AMF0Value])
    /// Any other type (shared objects, aggregates), payload untouched.
    case unknown(typeID: UInt8, payload: [UInt8])

    /// §5.4.5 limit types.
    public enum PeerBandwidthLimit: UInt8, Sendable {
        case hard = 0
        case soft = 1
        case dynamic = 2
    }

    /// Interprets a raw message; AMF3 types (15, 17) are refused.
    public init(raw: RTMPRawMessage, amf0: AMF0Decoder = AMF0Decoder()) throws(RTMPWireError) {
        let p = raw.payload
        func u32(_ what: String) throws(RTMPWireError) -> UInt32 {
            guard p.count >= 4 else { throw .truncated(what: what, size: p.count) }
            return be32(p)
        }
        switch raw.typeID {
        case 1: self = .setChunkSize(try u32("SetChunkSize") & 0x7FFF_FFFF)
        case 2: self = .abort(chunkStreamID: try u32("Abort"))
        case 3: self = .acknowledgement(sequenceNumber: try u32("Acknowledgement"))
        case 4: self = .userControl(try UserControlEvent.parse(p))
        case 5: self = .windowAcknowledgementSize(try u32("WindowAcknowledgementSize"))
        case 6:
            guard p.count >= 5 else { throw .truncated(what: "SetPeerBandwidth", size: p.count) }
            self = .setPeerBandwidth(size: be32(p), limitType: PeerBandwidthLimit(rawValue: p[4]) ?? .dynamic)
        case 8: self = .audio(p)
        case 9: self = .video(p)
        case 15, 17: throw .unsupportedAMF3(typeID: raw.typeID)
        case 18: self = .data(try amf0.decodeAll(p))
        case 20: self = .command(try amf0.decodeAll(p))
        default: self = .unknown(typeID: raw.typeID, payload: p)
        }
    }

    /// The message type ID.
    public var typeID: UInt8 {
        switch self {
        case .setChunkSize: 1
        case .abort: 2
        case .acknowledgement: 3
        case .userControl: 4
        case .windowAcknowledgementSize: 5
        case .setPeerBandwidth: 6
        case .audio: 8
        case .video: 9
        case .data: 18
        case .command: 20
        case .unknown(let t, _): t
        }
    }

    /// The message body.
    public var payload: [UInt8] {
        var w = ByteWriter(capacity: 16)
        switch self {
        case .setChunkSize(let v), .abort(let v), .acknowledgement(let v), .windowAcknowledgementSize(let v):
            w.writeUInt32(v)
        case .userControl(let e): return e.serialize()
        case .setPeerBandwidth(let size, let limit):
            w.writeUInt32(size)
            w.writeUInt8(limit.rawValue)
        case .audio(let b), .video(let b), .unknown(_, let b): return b
        case .data(let v), .command(let v): return AMF0Encoder.encode(v)
        }
        return w.bytes
    }

    /// The chunk stream conventionally used for this kind of message (2 control, 3 commands, 4 audio, 6 video).
    public var defaultChunkStreamID: UInt32 {
        switch self {
        case .setChunkSize, .abort, .acknowledgement, .userControl, .windowAcknowledgementSize, .setPeerBandwidth: 2
        case .command, .unknown: 3
        case .audio: 4
        case .data, .video: 6
        }
    }

    /// This message as a raw message ready for the chunk encoder.
    public func raw(timestamp: UInt32 = 0, messageStreamID: UInt32 = 0, chunkStreamID: UInt32? = nil) -> RTMPRawMessage
    {
        RTMPRawMessage(
            chunkStreamID: chunkStreamID ?? defaultChunkStreamID,
            timestamp: timestamp,
            typeID: typeID,
            messageStreamID: messageStreamID,
            payload: payload
        )
    }
}
