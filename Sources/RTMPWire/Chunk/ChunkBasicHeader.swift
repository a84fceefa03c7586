/// RTMP 1.0 §5.3.1.1: the chunk basic header (fmt + chunk stream ID in 1, 2 or 3 bytes).
enum ChunkBasicHeader {
    /// Lowest and highest encodable chunk stream IDs.
    static let minID: UInt32 = 2
    static let maxID: UInt32 = 65_599

    /// Reads (fmt, csid, length) from `bytes` at `i`; nil if more bytes are needed.
    static func read(_ bytes: [UInt8], at i: Int) -> (format: UInt8, chunkStreamID: UInt32, length: Int)? {
        guard i < bytes.count else { return nil }
        let format = bytes[i] >> 6
        switch bytes[i] & 0x3F {
        case 0:
            guard i + 1 < bytes.count else { return nil }
            return (format, UInt32(bytes[i + 1]) + 64, 2)
        case 1:
            guard i + 2 < bytes.count else { return nil }
            return (format, UInt32(bytes[i + 2]) << 8 + UInt32(bytes[i + 1]) + 64, 3)
        case let id:
            return (format, UInt32(id), 1)
        }
    }

    /// Appends the shortest basic header for `chunkStreamID` (2…65599).
    static func write(format: UInt8, chunkStreamID csid: UInt32, into out: inout [UInt8]) {
        precondition(csid >= minID && csid <= maxID, "chunk stream ID \(csid) out of range")
        if csid < 64 {
            out.append(format << 6 | UInt8(csid))
        } else if csid < 320 {
            out.append(format << 6)
            out.append(UInt8(csid - 64))
        } else {
            out.append(format << 6 | 1)
            out.append(UInt8(truncatingIfNeeded: csid - 64))
            out.append(UInt8(truncatingIfNeeded: (csid - 64) >> 8))
        }
    }
}
