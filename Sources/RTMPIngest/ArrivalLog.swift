/// When each received run of chunk-stream bytes arrived, so a message's first byte can be stamped.
struct ArrivalLog {
    /// Stream offset just past a run, and when the run arrived.
    private var runs: [(end: Int64, at: ContinuousClock.Instant)] = []
    private var total: Int64 = 0
    /// Runs kept; a message rarely spans more reads than this.
    private let capacity = 512

    /// Records `count` bytes received at `instant`.
    mutating func record(count: Int, at instant: ContinuousClock.Instant) {
        guard count > 0 else { return }
        total += Int64(count)
        runs.append((total, instant))
        if runs.count > capacity * 2 { runs.removeFirst(runs.count - capacity) }
    }

    /// When the byte at stream `offset` arrived; nil if it is older than the log.
    func instant(atOffset offset: Int64) -> ContinuousClock.Instant? {
        var lo = 0
        var hi = runs.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if runs[mid].end > offset { hi = mid } else { lo = mid + 1 }
        }
        return lo < runs.count ? runs[lo].at : nil
    }
}
