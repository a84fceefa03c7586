/// Why a bounded read failed; carries where and what was wanted.
public enum ByteReaderError: Error, Equatable, Sendable {
    /// Needed `wanted` bytes at `offset` but only `available` remained.
    case truncated(offset: Int, wanted: Int, available: Int)
}

/// A cursor over bytes for the pure parsers: big-endian reads, never traps on short input.
public struct ByteReader: Sendable {
    /// The bytes being read.
    public let bytes: [UInt8]
    /// Index of the next unread byte.
    public private(set) var offset: Int

    /// Reads `bytes` from `offset`.
    public init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// Bytes left to read.
    public var remaining: Int { bytes.count - offset }

    /// Takes the next `count` bytes.
    public mutating func read(count: Int) throws(ByteReaderError) -> ArraySlice<UInt8> {
        guard count >= 0, remaining >= count else {
            throw .truncated(offset: offset, wanted: count, available: remaining)
        }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// Takes everything left.
    public mutating func readRest() -> ArraySlice<UInt8> {
        defer { offset = bytes.count }
        return bytes[offset...]
    }

    /// Skips `count` bytes.
    public mutating func skip(_ count: Int) throws(ByteReaderError) { _ = try read(count: count) }

    /// Big-endian unsigned integer of `width` bytes (1…8).
    public mutating func readUInt(width: Int) throws(ByteReaderError) -> UInt64 {
        let slice = try read(count: width)
        return slice.reduce(0) { $0 << 8 | UInt64($1) }
    }

    public mutating func readUInt8() throws(ByteReaderError) -> UInt8 { UInt8(try readUInt(width: 1)) }
    public mutating func readUInt16() throws(ByteReaderError) -> UInt16 { UInt16(try readUInt(width: 2)) }
    public mutating func readUInt24() throws(ByteReaderError) -> UInt32 { UInt32(try readUInt(width: 3)) }
    public mutating func readUInt32() throws(ByteReaderError) -> UInt32 { UInt32(try readUInt(width: 4)) }
    public mutating func readUInt64() throws(ByteReaderError) -> UInt64 { try readUInt(width: 8) }
}

/// Appends big-endian integers and byte runs; the writer side of `ByteReader`.
public struct ByteWriter: Sendable {
    /// Everything written so far.
    public private(set) var bytes: [UInt8]

    /// An empty writer with room for `capacity` bytes.
    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Number of bytes written.
    public var count: Int { bytes.count }

    /// Appends a big-endian unsigned integer of `width` bytes.
    public mutating func writeUInt(_ value: UInt64, width: Int) {
        for i in stride(from: width - 1, through: 0, by: -1) {
            bytes.append(UInt8(truncatingIfNeeded: value >> (8 * i)))
        }
    }

    public mutating func writeUInt8(_ v: UInt8) { bytes.append(v) }
    public mutating func writeUInt16(_ v: UInt16) { writeUInt(UInt64(v), width: 2) }
    public mutating func writeUInt24(_ v: UInt32) { writeUInt(UInt64(v), width: 3) }
    public mutating func writeUInt32(_ v: UInt32) { writeUInt(UInt64(v), width: 4) }
    public mutating func writeUInt64(_ v: UInt64) { writeUInt(v, width: 8) }

    /// Appends raw bytes.
    public mutating func write<C: Collection>(_ run: C) where C.Element == UInt8 { bytes.append(contentsOf: run) }

    /// Overwrites a big-endian integer at `offset` (for sizes known only after the body is written).
    public mutating func patchUInt(_ value: UInt64, width: Int, at offset: Int) {
        for i in 0..<width { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * (width - 1 - i))) }
    }
}
