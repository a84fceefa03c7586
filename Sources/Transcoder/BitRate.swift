/// A bit rate, so configuration never carries bare integers of unknown unit.
public struct BitRate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Bits per second.
    public var bitsPerSecond: Int

    /// A rate in bits per second.
    public init(bitsPerSecond: Int) { self.bitsPerSecond = bitsPerSecond }

    /// A rate in kilobits (1 000 bits) per second.
    public init(kbps: Int) { bitsPerSecond = kbps * 1_000 }

    public var description: String { "\(bitsPerSecond / 1_000)k" }

    public static func < (lhs: BitRate, rhs: BitRate) -> Bool { lhs.bitsPerSecond < rhs.bitsPerSecond }
}
