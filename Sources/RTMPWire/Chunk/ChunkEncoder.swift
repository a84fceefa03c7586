/// RTMP 1.0 §5.3: splits messages into chunks, compressing headers (fmt 1/2/3) against the last one per stream.
public struct ChunkEncoder: Sendable {
    /// What was last sent on a chunk stream.
    struct LastHeader: Sendable {
        var timestamp: UInt32
        var timestampField: UInt32
        var length: Int
        var typeID: UInt8
        var messageStreamID: UInt32
    }

    /// Outgoing chunk size (128 until changed; announce it with a Set Chunk Size message first).
    public private(set) var chunkSize: Int
    private var last: [UInt32: LastHeader] = [:]

    /// Creates an encoder.
    public init(chunkSize: Int = 128) {
        precondition(chunkSize >= 1)
        self.chunkSize = chunkSize
    }

    /// Changes the outgoing chunk size (call right after sending Set Chunk Size).
    public mutating func setChunkSize(_ size: Int) {
        precondition(size >= 1 && size <= 0x7FFF_FFFF)
        chunkSize = size
    }

    /// Serializes one message.
    public mutating func encode(_ message: RTMPRawMessage) -> [UInt8] {
        var out: [UInt8] = []
        encode(message, into: &out)
        return out
    }

    /// Serializes one message, appending to `out`.
    public mutating func encode(_ m: RTMPRawMessage, into out: inout [UInt8]) {
        let csid = m.chunkStreamID
        let format: UInt8
        var field: UInt32
        if let p = last[csid], p.messageStreamID == m.messageStreamID, m.timestamp >= p.timestamp {
            field = m.timestamp - p.timestamp
            if p.length != m.payload.count || p.typeID != m.typeID {
                format = 1
            } else {
                format = field == p.timestampField ? 3 : 2
            }
        } else {
            format = 0
            field = m.timestamp
        }
        let extended = field >= 0xFF_FFFF
        out.reserveCapacity(out.count + m.payload.count + 18 + m.payload.count / chunkSize * 5)
        ChunkBasicHeader.write(format: format, chunkStreamID: csid, into: &out)
        if format < 3 { put24(extended ? 0xFF_FFFF : field, &out) }
        if format < 2 {
            put24(UInt32(m.payload.count), &out)
            out.append(m.typeID)
        }
        if format == 0 {
            let id = m.messageStreamID
            out += [
                UInt8(truncatingIfNeeded: id), UInt8(truncatingIfNeeded: id >> 8), UInt8(truncatingIfNeeded: id >> 16),
                UInt8(id >> 24),
            ]
        }
        if extended { put32(field, &out) }
        var offset = 0
        repeat {
            let n = min(chunkSize, m.payload.count - offset)
            out.append(contentsOf: m.payload[offset..<offset + n])
            offset += n
            if offset < m.payload.count {
                ChunkBasicHeader.write(format: 3, chunkStreamID: csid, into: &out)
                if extended { put32(field, &out) }
            }
        } while offset < m.payload.count
        last[csid] = LastHeader(
            timestamp: m.timestamp,
            timestampField: field,
            length: m.payload.count,
            typeID: m.typeID,
            messageStreamID: m.messageStreamID
        )
    }

    private func put24(_ v: UInt32, _ out: inout [UInt8]) {
        out += [UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]
    }

    private func put32(_ v: UInt32, _ out: inout [UInt8]) {
        out += [
            UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8),
            UInt8(truncatingIfNeeded: v),
        ]
    }
}
