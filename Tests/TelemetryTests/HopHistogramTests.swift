import Foundation
import TestSupport
import Testing

@testable import Telemetry

/// HDR percentiles against the nearest rank of the sorted samples.
struct HopHistogramTests {
    /// Nearest rank: the smallest sample with at least q of all samples at or below it.
    static func nearestRank(_ sorted: [Int64], _ q: Double) -> Int64 {
        let rank = max(1, Int((q * Double(sorted.count)).rounded(.up)))
        return sorted[min(sorted.count, rank) - 1]
    }

    @Test(arguments: [1, 2, 7, 100, 1_000, 10_007])
    func quantilesEqualNearestRankBelowTheExactRange(count: Int) {
        // Below 2048 µs every microsecond has its own bucket at 3 significant digits: percentiles are exact.
        var rng = SeededRandom(seed: UInt64(count))
        let samples = (0..<count).map { _ in Int64.random(in: 0..<2_048, using: &rng) }
        var h = HopHistogram()
        for s in samples { h.record(.microseconds(s)) }
        let sorted = samples.sorted()
        #expect(h.count == count)
        for q in [0.5, 0.9, 0.99] {
            #expect(h.quantile(q) == .microseconds(Self.nearestRank(sorted, q)), "q=\(q)")
        }
        #expect(h.max == .microseconds(sorted.last!))
    }

    @Test(arguments: [3, 500, 20_000])
    func quantilesAreEquivalentToNearestRankUpToOneMinute(count: Int) {
        var rng = SeededRandom(seed: 0xC0FFEE &+ UInt64(count))
        // Log-uniform from 1 µs to 60 s: every decade of latency a gateway can see.
        let samples = (0..<count).map { _ in Int64(pow(10, Double.random(in: 0..<7.77, using: &rng))) }
        var h = HopHistogram()
        for s in samples { h.record(.microseconds(s)) }
        let sorted = samples.sorted()
        for q in [0.5, 0.9, 0.99] {
            let got = h.quantile(q)!
            let want = Duration.microseconds(Self.nearestRank(sorted, q))
            #expect(h.equivalent(got, want), "q=\(q): \(got) vs \(want)")
            // Equivalent means within the 3-significant-digit bucket: 0.1 % of the value.
            let gotUS = Double(HopHistogram.microseconds(got))
            let wantUS = Double(HopHistogram.microseconds(want))
            #expect(abs(gotUS - wantUS) <= max(1, wantUS * 0.001))
        }
    }

    @Test func emptyHistogramHasNoQuantiles() {
        let h = HopHistogram()
        #expect(h.quantile(0.5) == nil)
        #expect(h.max == nil)
        #expect(h.count == 0)
    }

    @Test func negativeAndHugeLatenciesClampToTheTrackedRange() {
        var h = HopHistogram()
        h.record(.milliseconds(-5))
        h.record(.seconds(3_600))
        #expect(h.quantile(0.5) == .zero)
        #expect(h.max.map { h.equivalent($0, .seconds(60)) } == true)
    }
}
