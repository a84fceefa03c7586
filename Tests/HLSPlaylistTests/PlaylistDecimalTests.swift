import Foundation
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

    /// Media times rounded to nearest (`format`, PART-TARGET) and down (`duration`, EXTINF and PART DURATION).
    static let times: [(MediaTime, nearest: String, down: String)] = [
        (MediaTime(value: 3_003, timescale: 90_000), "0.03337", "0.03336"),  // 29.97 fps frame: 0.0333666
        (MediaTime(value: 180_180, timescale: 90_000), "2.00200", "2.00200"),
        (MediaTime(value: 18_090, timescale: 90_000), "0.20100", "0.20100"),
        (MediaTime(value: 18_000, timescale: 90_000), "0.20000", "0.20000"),  // integer ticks: no 0.19999 from a Double
        (MediaTime(value: 1_024, timescale: 48_000), "0.02133", "0.02133"),
        (MediaTime(value: 2_048, timescale: 48_000), "0.04267", "0.04266"),  // 2 AAC frames
        (MediaTime(value: 9_216, timescale: 48_000), "0.19200", "0.19200"),
        (MediaTime(value: 48_128, timescale: 48_000), "1.00267", "1.00266"),  // 47 AAC frames: 1.0026666
        (MediaTime(value: 0, timescale: 90_000), "0.00000", "0.00000"),
        (MediaTime(value: 2_002, timescale: 1_000), "2.00200", "2.00200"),
    ]

    @Test(arguments: 0..<times.count)
    func formatsMediaTimesToNearestAndLengthsDown(_ i: Int) {
        #expect(PlaylistDecimal.format(Self.times[i].0) == Self.times[i].nearest)
        #expect(PlaylistDecimal.duration(Self.times[i].0) == Self.times[i].down)
    }

    /// A player dates each segment by adding the lengths before it: that sum never passes the media's own end, and
    /// trails it by under 10 µs per length (property over random lengths; compared in integers, 10 µs units vs ticks).
    @Test func runningSumsOfPrintedLengthsNeverRunAheadOfTheMedia() {
        var rng = SeededRandom(seed: 7)
        for timescale: Int32 in [48_000, 44_100, 90_000, 1_000] {
            let ts = Int64(timescale)
            var ticks: Int64 = 0
            var printed: Int64 = 0
            for n in 1...2_000 {
                let t = MediaTime(value: Int64.random(in: 1...200_000, using: &rng), timescale: timescale)
                ticks += t.value
                printed += Int64(PlaylistDecimal.duration(t).replacingOccurrences(of: ".", with: ""))!
                #expect(printed * ts <= ticks * 100_000, "\(timescale) Hz: ahead after \(n) lengths")
                #expect(ticks * 100_000 - printed * ts < Int64(n) * ts, "\(timescale) Hz: over 10 µs behind per length")
            }
        }
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
