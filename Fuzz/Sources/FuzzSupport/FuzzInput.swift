/// Structured values drawn front to back from one fuzz input; reads past the end give zeros or fewer bytes.
public struct FuzzInput {
    private let data: [UInt8]
    private var offset = 0

    /// A reader over `bytes`.
    public init(_ bytes: [UInt8]) {
        data = bytes
    }

    /// True when every byte has been read.
    public var isAtEnd: Bool { offset >= data.count }

    /// The next byte (0 at the end).
    public mutating func byte() -> UInt8 {
        guard offset < data.count else { return 0 }
        defer { offset += 1 }
        return data[offset]
    }

    /// The next two bytes, big-endian.
    public mutating func uint16() -> UInt16 { UInt16(byte()) << 8 | UInt16(byte()) }

    /// The next four bytes, big-endian.
    public mutating func uint32() -> UInt32 { UInt32(uint16()) << 16 | UInt32(uint16()) }

    /// Up to `count` next bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        let end = min(data.count, offset + max(0, count))
        defer { offset = end }
        return Array(data[offset..<end])
    }

    /// Everything not read yet.
    public mutating func rest() -> [UInt8] { bytes(data.count - offset) }
}
