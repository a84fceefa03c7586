import Histogram

/// Exact-enough latency percentiles: an HDR histogram at microsecond resolution, 3 significant digits, up to 60 s.
public struct HopHistogram: Sendable {
    private var hdr: Histogram<UInt32>
    /// Largest value tracked, microseconds; longer latencies count as this.
    public static let highestMicroseconds: UInt64 = 60_000_000

    /// An empty histogram.
    public init() {
        hdr = Histogram(
            lowestDiscernibleValue: 1,
            highestTrackableValue: Self.highestMicroseconds,
            numberOfSignificantValueDigits: .three
        )
    }

    /// Samples recorded.
    public var count: Int { Int(hdr.totalCount) }

    /// Records one latency; negative spans (clock skew across hosts) count as zero.
    public mutating func record(_ latency: Duration) {
        _ = hdr.record(min(Self.highestMicroseconds, Self.microseconds(latency)))
    }

    /// The nearest-rank `q` quantile (0…1): the smallest recorded value with at least q of the samples at or below it.
    public func quantile(_ q: Double) -> Duration? {
        guard hdr.totalCount > 0 else { return nil }
        return .microseconds(Int64(hdr.valueAtPercentile(q * 100)))
    }

    /// Largest recorded value.
    public var max: Duration? { hdr.totalCount > 0 ? .microseconds(Int64(hdr.max)) : nil }

    /// True when two microsecond values fall in the same HDR bucket (equal at this precision).
    public func equivalent(_ a: Duration, _ b: Duration) -> Bool {
        hdr.valuesAreEquivalent(Self.microseconds(a), Self.microseconds(b))
    }

    /// Whole microseconds of `d`, clamped at zero.
    static func microseconds(_ d: Duration) -> UInt64 {
        let (s, atto) = d.components
        let us = s * 1_000_000 + atto / 1_000_000_000_000
        return us < 0 ? 0 : UInt64(us)
    }
}
