/// p50/p90/p99 of one latency over a run, in milliseconds (nearest rank, like the gateway's HDR histograms).
public struct LatencyPercentiles: Sendable, Codable, Equatable {
    /// Samples behind the percentiles.
    public var count: Int
    /// Median, milliseconds.
    public var p50Ms: Double
    /// 90th percentile, milliseconds.
    public var p90Ms: Double
    /// 99th percentile, milliseconds.
    public var p99Ms: Double

    /// Percentiles as given.
    public init(count: Int, p50Ms: Double, p90Ms: Double, p99Ms: Double) {
        self.count = count
        self.p50Ms = p50Ms
        self.p90Ms = p90Ms
        self.p99Ms = p99Ms
    }

    /// Nearest-rank percentiles of `samples`, with `misses` ranked after every sample as infinite delays (a failed
    /// request is as late as it gets); nil when there is nothing.
    public init?(samples: [Duration], misses: Int = 0) {
        guard !samples.isEmpty || misses > 0 else { return nil }
        let sorted = samples.map { $0.milliseconds }.sorted() + Array(repeating: .infinity, count: max(0, misses))
        func rank(_ q: Double) -> Double {
            // Nearest rank: the smallest value with at least q of the samples at or below it.
            let i = Int((q * Double(sorted.count)).rounded(.up)) - 1
            return (sorted[min(sorted.count - 1, max(0, i))] * 1000).rounded() / 1000
        }
        self.init(count: sorted.count, p50Ms: rank(0.5), p90Ms: rank(0.9), p99Ms: rank(0.99))
    }
}

extension Duration {
    /// Milliseconds as a Double (negative when the span is).
    var milliseconds: Double {
        let (s, atto) = components
        return Double(s) * 1000 + Double(atto) / 1e15
    }
}
