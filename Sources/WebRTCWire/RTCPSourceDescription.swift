import MediaCore

/// RFC 3550 §6.5: one SDES chunk (an SSRC and its items, CNAME = type 1), padded to 32 bits.
public struct RTCPSourceDescriptionChunk: Equatable, Sendable {
    /// The described source.
    public var ssrc: UInt32
    /// Items as (type, text); type 1 is CNAME.
    public var items: [Item]

    /// One SDES item.
    public struct Item: Equatable, Sendable {
        /// 1 CNAME, 2 NAME, … 8 PRIV.
        public var type: UInt8
        /// Up to 255 bytes of UTF-8.
        public var text: String

        /// An item.
        public init(type: UInt8, text: String) {
            self.type = type
            self.text = text
        }
    }

    /// A chunk.
    public init(ssrc: UInt32, items: [Item]) {
        self.ssrc = ssrc
        self.items = items
    }

    /// The CNAME item, if present.
    public var cname: String? { items.first { $0.type == 1 }?.text }

    static func read(from reader: inout ByteReader, count: Int) throws(ByteReaderError) -> [RTCPSourceDescriptionChunk]
    {
        var chunks: [RTCPSourceDescriptionChunk] = []
        for _ in 0..<count {
            let start = reader.offset
            let ssrc = try reader.readUInt32()
            var items: [Item] = []
            while true {
                let type = try reader.readUInt8()
                if type == 0 { break }
                let length = Int(try reader.readUInt8())
                items.append(Item(type: type, text: String(decoding: try reader.read(count: length), as: UTF8.self)))
            }
            // The null item is followed by more nulls up to the next 32-bit boundary.
            try reader.skip((4 - (reader.offset - start) % 4) % 4)
            chunks.append(RTCPSourceDescriptionChunk(ssrc: ssrc, items: items))
        }
        return chunks
    }

    func encoded() -> [UInt8] {
        var out = ByteWriter(capacity: 16)
        out.writeUInt32(ssrc)
        for item in items {
            let text = Array(item.text.utf8.prefix(255))
            out.writeUInt8(item.type)
            out.writeUInt8(UInt8(text.count))
            out.write(text)
        }
        out.writeUInt8(0)
        out.write([UInt8](repeating: 0, count: (4 - out.count % 4) % 4))
        return out.bytes
    }
}

/// RFC 3550 §6.6: BYE, a source leaving, with an optional reason.
public struct RTCPBye: Equatable, Sendable {
    /// The leaving sources.
    public var sources: [UInt32]
    /// Optional reason text.
    public var reason: String?

    /// A BYE.
    public init(sources: [UInt32], reason: String? = nil) {
        self.sources = sources
        self.reason = reason
    }

    init(reading reader: inout ByteReader, sourceCount: Int) throws(ByteReaderError) {
        sources = []
        for _ in 0..<sourceCount { sources.append(try reader.readUInt32()) }
        reason = nil
        if reader.remaining > 0 {
            let length = Int(try reader.readUInt8())
            reason = String(decoding: try reader.read(count: length), as: UTF8.self)
        }
    }

    func encodedBody() -> [UInt8] {
        var out = ByteWriter(capacity: 4 * sources.count + 8)
        for source in sources.prefix(31) { out.writeUInt32(source) }
        if let reason {
            let text = Array(reason.utf8.prefix(255))
            out.writeUInt8(UInt8(text.count))
            out.write(text)
            out.write([UInt8](repeating: 0, count: (4 - out.count % 4) % 4))
        }
        return out.bytes
    }
}
