import MediaCore

/// RTMP 1.0 §7.1.7 (and §6.2): User Control events, carried in message type 4.
public enum UserControlEvent: Equatable, Sendable {
    /// Event 0: the stream became functional.
    case streamBegin(streamID: UInt32)
    /// Event 1: playback of the stream ended.
    case streamEOF(streamID: UInt32)
    /// Event 2: no more data on the stream.
    case streamDry(streamID: UInt32)
    /// Event 3: the client's buffer length for a stream.
    case setBufferLength(streamID: UInt32, milliseconds: UInt32)
    /// Event 4: the stream is recorded.
    case streamIsRecorded(streamID: UInt32)
    /// Event 6: the server checks the client is alive.
    case pingRequest(timestamp: UInt32)
    /// Event 7: the answer to a ping request.
    case pingResponse(timestamp: UInt32)
    /// Any other event type, kept as is.
    case other(eventType: UInt16, data: [UInt8])

    /// Parses a type-4 message body.
    public static func parse(_ body: [UInt8]) throws(RTMPWireError) -> UserControlEvent {
        var r = ByteReader(body)
        do {
            let type = try r.readUInt16()
            switch type {
            case 0: return .streamBegin(streamID: try r.readUInt32())
            case 1: return .streamEOF(streamID: try r.readUInt32())
            case 2: return .streamDry(streamID: try r.readUInt32())
            case 3: return .setBufferLength(streamID: try r.readUInt32(), milliseconds: try r.readUInt32())
            case 4: return .streamIsRecorded(streamID: try r.readUInt32())
            case 6: return .pingRequest(timestamp: try r.readUInt32())
            case 7: return .pingResponse(timestamp: try r.readUInt32())
            default: return .other(eventType: type, data: Array(r.readRest()))
            }
        } catch {
            throw .truncated(what: "UserControl", size: body.count)
        }
    }

    /// Serializes as a type-4 message body.
    public func serialize() -> [UInt8] {
        var w = ByteWriter(capacity: 10)
        switch self {
        case .streamBegin(let id):
            w.writeUInt16(0)
            w.writeUInt32(id)
        case .streamEOF(let id):
            w.writeUInt16(1)
            w.writeUInt32(id)
        case .streamDry(let id):
            w.writeUInt16(2)
            w.writeUInt32(id)
        case .setBufferLength(let id, let ms):
            w.writeUInt16(3)
            w.writeUInt32(id)
            w.writeUInt32(ms)
        case .streamIsRecorded(let id):
            w.writeUInt16(4)
            w.writeUInt32(id)
        case .pingRequest(let t):
            w.writeUInt16(6)
            w.writeUInt32(t)
        case .pingResponse(let t):
            w.writeUInt16(7)
            w.writeUInt32(t)
        case .other(let type, let data):
            w.writeUInt16(type)
            w.write(data)
        }
        return w.bytes
    }
}
