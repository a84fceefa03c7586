/// RFC 3550 §A.1 and RFC 1982: serial-number arithmetic for 16-bit sequence numbers that wrap.
public enum RTPSequenceNumber {
    /// True when `a` comes after `b` (less than half the space ahead, wrap-around aware).
    public static func isNewer(_ a: UInt16, than b: UInt16) -> Bool {
        a != b && a &- b < 0x8000
    }

    /// Signed steps from `a` to `b` (−32768…32767).
    public static func distance(from a: UInt16, to b: UInt16) -> Int {
        Int(Int16(bitPattern: b &- a))
    }

    /// How `next` follows `last` for an in-order consumer.
    public enum Step: Equatable, Sendable {
        /// `last + 1`.
        case next
        /// Ahead, with `missing` numbers skipped.
        case gap(missing: Int)
        /// Equal to or a little behind `last`: drop it.
        case stale
        /// Far behind: the sender restarted its sequence; start again from here.
        case restart
    }

    /// Classifies `next` after `last`; anything more than `staleWindow` behind counts as a restart.
    public static func step(from last: UInt16, to next: UInt16, staleWindow: Int = 1_000) -> Step {
        let d = distance(from: last, to: next)
        if d == 1 { return .next }
        if d > 1 { return .gap(missing: d - 1) }
        return -d <= staleWindow ? .stale : .restart
    }
}

/// RFC 3550 §A.1: extends 16-bit sequence numbers to a monotonic 64-bit count by tracking wrap-arounds.
public struct RTPSequenceUnwrapper: Sendable {
    private var last: Int64?

    /// A fresh unwrapper; the first number seen maps to itself (plus 65536 so early reordering stays positive).
    public init() {}

    /// The extended number for `sequence`, relative to the newest seen so far (older numbers unwrap backwards).
    public mutating func unwrap(_ sequence: UInt16) -> Int64 {
        guard let last else {
            let first = Int64(sequence) + 65_536
            self.last = first
            return first
        }
        let extended = last + Int64(RTPSequenceNumber.distance(from: UInt16(truncatingIfNeeded: last), to: sequence))
        if extended > last { self.last = extended }
        return extended
    }
}
