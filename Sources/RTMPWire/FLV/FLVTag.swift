import MediaCore

/// A whole FLV file tag (FLV spec v10.1 §E.4.1) plus its trailing PreviousTagSize: what `RTMP_Write` takes.
public struct FLVTag: Equatable, Sendable {
    /// TagType: 8 audio, 9 video, 18 script data.
    public enum Kind: UInt8, Sendable {
        case audio = 8
        case video = 9
        case script = 18
    }

    /// The tag type.
    public var kind: Kind
    /// Timestamp in milliseconds (32 bits: 24 low + 8 extended).
    public var timestamp: UInt32
    /// The tag body (an RTMP message payload).
    public var body: [UInt8]

    /// Creates a tag.
    public init(kind: Kind, timestamp: UInt32, body: [UInt8]) {
        self.kind = kind
        self.timestamp = timestamp
        self.body = body
    }

    /// The 11-byte header, body, and 4-byte PreviousTagSize.
    public func serialize() -> [UInt8] {
        var w = ByteWriter(capacity: 15 + body.count)
        w.writeUInt8(kind.rawValue)
        w.writeUInt24(UInt32(body.count))
        w.writeUInt24(timestamp & 0xFF_FFFF)
        w.writeUInt8(UInt8(timestamp >> 24))
        w.writeUInt24(0)  // StreamID is always 0.
        w.write(body)
        w.writeUInt32(UInt32(11 + body.count))
        return w.bytes
    }

    /// Reads one tag (with its PreviousTagSize) from `reader`.
    public static func read(from reader: inout ByteReader) throws(FLVError) -> FLVTag {
        do {
            let type = try reader.readUInt8()
            let size = Int(try reader.readUInt24())
            let low = try reader.readUInt24()
            let high = try reader.readUInt8()
            try reader.skip(3)
            let body = Array(try reader.read(count: size))
            try reader.skip(4)
            guard let kind = Kind(rawValue: type & 0x1F) else { throw FLVError.unknownPacketType(type) }
            return FLVTag(kind: kind, timestamp: UInt32(high) << 24 | low, body: body)
        } catch let e as FLVError {
            throw e
        } catch {
            throw .truncated(field: "FLV tag", size: reader.remaining)
        }
    }
}
