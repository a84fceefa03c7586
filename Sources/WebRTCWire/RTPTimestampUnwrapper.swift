import MediaCore

/// RFC 3550 §5.1: extends 32-bit RTP timestamps (which wrap every 13 h at 90 kHz) to a monotonic 64-bit count.
public struct RTPTimestampUnwrapper: Sendable {
    private var last: Int64?

    /// A fresh unwrapper; the first timestamp maps to itself.
    public init() {}

    /// The extended timestamp, relative to the last one seen (older ones unwrap backwards).
    public mutating func unwrap(_ timestamp: UInt32) -> Int64 {
        guard let last else {
            last = Int64(timestamp)
            return Int64(timestamp)
        }
        let step = Int64(Int32(bitPattern: timestamp &- UInt32(truncatingIfNeeded: last)))
        let extended = last + step
        if extended > last { self.last = extended }
        return extended
    }

    /// The extended timestamp as media time at `clockRate` (90 000 video, 48 000 Opus).
    public mutating func mediaTime(_ timestamp: UInt32, clockRate: Int32) -> MediaTime {
        MediaTime(value: unwrap(timestamp), timescale: clockRate)
    }
}
