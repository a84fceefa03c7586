import MediaCore
import TestSupport
import Testing

@testable import HLSPlaylist

/// RFC 8216bis §4.2 decimal-floating-point: fixed decimals, no exponent, no locale.
@Suite("Decimal formatting")
struct PlaylistDecimalTests {
    /// Seconds, decimals and the exact text.
    static let seconds: [(Double, Int, String)] = [
        (0, 5, "0.00000"),
        (2, 5, "2.00000"),
        (0.2002, 5, "0.20020"),
        (1.0 / 3, 5, "0.33333"),
        (2.0 / 3, 5, "0.66667"),
        (0.000004, 5, "0.00000"),
        (0.000006, 5, "0.00001"),
        (9.999996, 5, "10.00000"),
        (12, 3, "12.000"),
        (29.97, 3, "29.970"),
        (59.94, 3, "59.940"),
        (3_600.5, 3, "3600.500"),
        (86_400 * 365, 5, "31536000.00000"),
    ]

    @Test(arguments: 0..<seconds.count)
    func formatsSecondsWithFixedDecimals(_ i: Int) {
        let (value, decimals, text) = Self.seconds[i]
        #expect(PlaylistDecimal.format(seconds: value, decimals: decimals) == text)
    }

    /// Media times as they appear in EXTINF and PART DURATION.
    static let times: [(MediaTime, String)] = [
        (MediaTime(value: 3_003, timescale: 90_000), "0.03337"),
        (MediaTime(value: 180_180, timescale: 90_000), "2.00200"),
        (MediaTime(value: 18_090, timescale: 90_000), "0.20100"),
        (MediaTime(value: 1_024, timescale: 48_000), "0.02133"),
        (MediaTime(value: 9_216, timescale: 48_000), "0.19200"),
        (MediaTime(value: 2_002, timescale: 1_000), "2.00200"),
    ]

    @Test(arguments: 0..<times.count)
    func formatsMediaTimes(_ i: Int) {
        #expect(PlaylistDecimal.format(Self.times[i].0) == Self.times[i].1)
    }

    @Test func partDurationsSumToTheirSegmentWithinFiveDecimals() {
        // Ten 6-frame parts at 29.97 fps: rendered parts must add up to the rendered EXTINF within 0.05 ms per part.
        let part = PlaylistDecimal.format(MediaTime(value: 18_018, timescale: 90_000))
        let segment = PlaylistDecimal.format(MediaTime(value: 180_180, timescale: 90_000))
        #expect(abs(Double(part)! * 10 - Double(segment)!) < 0.000_5)
    }

    @Test func negativeValuesKeepTheirSign() {
        do {
            #expect(PlaylistDecimal.format(seconds: -0.5) == "-0.50000")
        }
        #expect(PlaylistDecimal.format(seconds: -1.5) == "-1.50000")
    }

    @Test func randomValuesRoundTripThroughTheText() {
        var rng = SeededRandom(seed: 42)
        for _ in 0..<5_000 {
            let v = Double.random(in: 0..<100_000, using: &rng)
            let text = PlaylistDecimal.format(seconds: v, decimals: 5)
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            #expect(
                parts.count == 2 && parts[1].count == 5 && parts.allSatisfy { $0.allSatisfy(\.isNumber) },
                "\(text)"
            )
            #expect(abs(Double(text)! - v) <= 0.000_005 + 1e-9, "\(v) -> \(text)")
        }
    }
}
