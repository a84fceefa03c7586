import MediaCore

/// ISO/IEC 13818-1 §2.4.3.7 and §2.4.3.5: one stream timeline from 33-bit 90 kHz timestamps, shared by all tracks.
///
/// Undoes the 2^33 wrap (26.5 h) and bridges jumps (a discontinuity, an encoder restart, a PCR jump) so media time
/// keeps moving forward; the first timestamp maps to `start`, so every track's times stay non-negative.
public struct TSTimeline: Sendable {
    /// 2^33: PTS/DTS wrap here.
    static let wrap: Int64 = 1 << 33
    /// How far after the last time a bridged jump continues.
    static let bridgeStep: Int64 = 9
    /// A step larger than this (forward or back) between consecutive timestamps is a jump, not media.
    public var maximumStep: Int64 = 10 * 90_000
    /// Where the first timestamp lands: room for the other track starting slightly earlier.
    public var start: Int64 = 90_000 / 10
    private var offset: Int64?
    private var last: Int64?
    /// Jumps bridged so far.
    public private(set) var jumps = 0

    /// A timeline that has seen nothing.
    public init() {}

    /// Media time (90 kHz) of a raw timestamp; `discontinuity` says a break was flagged (or packets lost) before it.
    public mutating func time(of raw: Int64, discontinuity: Bool = false) -> Int64 {
        let raw = raw & (Self.wrap - 1)
        guard var offset, let last else {
            offset = start - raw
            last = start
            return start
        }
        var mapped = raw + offset
        // Bring the raw value to the wrap period nearest the last mapped time.
        let periods = ((last - mapped) + Self.wrap / 2).floorDivided(by: Self.wrap)
        mapped += periods * Self.wrap
        offset += periods * Self.wrap
        // A flagged discontinuity lowers the bar: tracks legitimately sit a few hundred ms apart in the mux.
        let step = abs(mapped - last)
        if step > maximumStep || (discontinuity && step > 90_000) {
            // Continue 100 µs (9 ticks, one step of TSToStream's microsecond grid) after the last time: the other track
            // re-bases on the same shift.
            let shift = last + Self.bridgeStep - mapped
            offset += shift
            mapped += shift
            jumps += 1
        }
        self.offset = offset
        self.last = max(last, mapped)
        return max(0, mapped)
    }
}

extension Int64 {
    /// Division rounding toward negative infinity.
    fileprivate func floorDivided(by d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
}
