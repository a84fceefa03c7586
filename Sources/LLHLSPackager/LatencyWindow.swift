/// The last N latency samples of one hop, for percentiles (the full histograms come with Telemetry).
struct LatencyWindow: Sendable {
    private var samples: [Duration] = []
    private var next = 0
    /// Samples kept.
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Number of samples held.
    var count: Int { samples.count }

    mutating func record(_ d: Duration) {
        if samples.count < capacity {
            samples.append(d)
        } else {
            samples[next] = d
            next = (next + 1) % capacity
        }
    }

    /// The `q` quantile (0…1) of the samples held.
    func quantile(_ q: Double) -> Duration? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        let i = min(sorted.count - 1, max(0, Int((q * Double(sorted.count - 1)).rounded())))
        return sorted[i]
    }
}
