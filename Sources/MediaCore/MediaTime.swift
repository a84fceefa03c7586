/// A point or span on a media timeline, counted in ticks of `timescale` per second.
public struct MediaTime: Hashable, Sendable, CustomStringConvertible {
    /// Ticks since the timeline's origin (may be negative for composition offsets).
    public var value: Int64
    /// Ticks per second, e.g. 90 000 for video, the sample rate for audio, 1 000 for RTMP.
    public var timescale: Int32

    /// Creates a time of `value` ticks at `timescale` ticks per second.
    public init(value: Int64, timescale: Int32) {
        precondition(timescale > 0, "timescale must be positive")
        self.value = value
        self.timescale = timescale
    }

    /// Zero at the given timescale.
    public static func zero(timescale: Int32) -> MediaTime { MediaTime(value: 0, timescale: timescale) }

    /// The same instant expressed in another timescale, rounded to the nearest tick.
    public func converted(to newScale: Int32) -> MediaTime {
        if newScale == timescale { return self }
        let num = value * Int64(newScale)
        let den = Int64(timescale)
        // Round half away from zero so negative offsets convert symmetrically.
        let rounded = num >= 0 ? (num + den / 2) / den : -((-num + den / 2) / den)
        return MediaTime(value: rounded, timescale: newScale)
    }

    /// Seconds as a floating-point number (for display and playlist rendering only).
    public var seconds: Double { Double(value) / Double(timescale) }

    /// The span as a Swift `Duration`.
    public var duration: Duration {
        .nanoseconds(value * 1_000_000_000 / Int64(timescale))
    }

    public var description: String { "\(value)/\(timescale)" }

    /// Sum in the left operand's timescale.
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        MediaTime(value: lhs.value + rhs.converted(to: lhs.timescale).value, timescale: lhs.timescale)
    }

    /// Difference in the left operand's timescale.
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        MediaTime(value: lhs.value - rhs.converted(to: lhs.timescale).value, timescale: lhs.timescale)
    }
}

extension MediaTime: Comparable {
    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        // Cross-multiply so differing timescales compare exactly.
        lhs.value * Int64(rhs.timescale) < rhs.value * Int64(lhs.timescale)
    }

    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool {
        lhs.value * Int64(rhs.timescale) == rhs.value * Int64(lhs.timescale)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(converted(to: 90_000).value)
    }
}

extension Duration {
    /// Whole milliseconds, truncated (for logs and playlist math).
    public var milliseconds: Int64 {
        let (s, atto) = components
        return s * 1_000 + atto / 1_000_000_000_000_000
    }

    /// Seconds as a floating-point number.
    public var secondsDouble: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}
