/// Frames and bytes per whole second over the last few seconds: measured fps and bit rate.
public struct RateMeter: Sendable {
    /// Seconds averaged (complete seconds before the current one).
    public static let window = 5
    private let origin: ContinuousClock.Instant
    /// (second index since origin, frames, bytes), newest last.
    private var buckets: [(second: Int64, frames: Int, bytes: Int)] = []

    public init(origin: ContinuousClock.Instant) { self.origin = origin }

    private func second(_ t: ContinuousClock.Instant) -> Int64 { (t - origin).components.seconds }

    public mutating func add(frames: Int, bytes: Int, at t: ContinuousClock.Instant) {
        let s = second(t)
        if let last = buckets.last, last.second == s {
            buckets[buckets.count - 1].frames += frames
            buckets[buckets.count - 1].bytes += bytes
        } else {
            buckets.append((s, frames, bytes))
            if buckets.count > Self.window + 2 { buckets.removeFirst(buckets.count - Self.window - 2) }
        }
    }

    /// Frames per second and bits per second over the complete seconds of the window before `now`.
    public func rates(now: ContinuousClock.Instant) -> (fps: Double, bitsPerSecond: Double) {
        let current = second(now)
        // A young stream averages over the seconds it has lived, not the whole window.
        let first = max(current - Int64(Self.window), buckets.first?.second ?? current)
        let span = Double(current - first)
        guard span > 0 else { return (0, 0) }
        let counted = buckets.filter { $0.second >= first && $0.second < current }
        let frames = counted.reduce(0) { $0 + $1.frames }
        let bytes = counted.reduce(0) { $0 + $1.bytes }
        return (Double(frames) / span, Double(bytes) * 8 / span)
    }
}

/// The largest value seen per whole second over the last few seconds (peak of a gauge).
struct PeakWindow: Sendable {
    private let origin: ContinuousClock.Instant
    private var buckets: [(second: Int64, peak: Int)] = []

    init(origin: ContinuousClock.Instant) { self.origin = origin }

    mutating func note(_ value: Int, at t: ContinuousClock.Instant) {
        let s = (t - origin).components.seconds
        if let last = buckets.last, last.second == s {
            buckets[buckets.count - 1].peak = max(last.peak, value)
        } else {
            buckets.append((s, value))
            if buckets.count > 16 { buckets.removeFirst(buckets.count - 16) }
        }
    }

    /// Peak over `span` before `now`.
    func peak(within span: Duration, now: ContinuousClock.Instant) -> Int {
        let from = (now - span - origin).components.seconds
        return buckets.filter { $0.second >= from }.map(\.peak).max() ?? 0
    }
}
