import MediaCore

/// Renders durations as HLS decimal-floating-point (RFC 8216bis §4.2) with a fixed precision.
public enum PlaylistDecimal {
    /// A media time rounded to nearest (PART-TARGET); five decimals keep part sums within 0.05 ms of their EXTINF.
    public static func format(_ t: MediaTime, decimals: Int = 5) -> String {
        format(seconds: t.seconds, decimals: decimals)
    }

    /// A segment's or part's length (EXTINF, PART DURATION), rounded down so a client's running sum never dates the next
    /// segment after the media's end: 47 AAC frames (1.0026666 s) printed 1.00267 put hls.js's next audio segment a few
    /// microseconds past its buffer, which its exact lookup at the live edge skipped until the next playlist (0.2 s of
    /// audio buffer lost at every segment boundary).
    public static func duration(_ t: MediaTime, decimals: Int = 5) -> String {
        let scale = power(decimals)
        // Integer ticks: 0.2 s as a Double times 10^5 can land a hair under 20 000 and round down to 0.19999.
        let (product, overflow) = t.value.multipliedReportingOverflow(by: scale)
        guard !overflow else { return format(seconds: t.seconds, decimals: decimals) }
        return render(scaled: product / Int64(t.timescale), scale: scale, decimals: decimals)
    }

    /// Fixed-point rendering without Foundation's locale-dependent formatters.
    public static func format(seconds: Double, decimals: Int = 5) -> String {
        let scale = power(decimals)
        return render(scaled: Int64((seconds * Double(scale)).rounded()), scale: scale, decimals: decimals)
    }

    /// 10^`decimals`: units of the printed last digit per second.
    private static func power(_ decimals: Int) -> Int64 {
        (0..<decimals).reduce(1) { p, _ in p * 10 }
    }

    /// `scaled` units of 1/`scale` second as text.
    private static func render(scaled: Int64, scale: Int64, decimals: Int) -> String {
        let magnitude = abs(scaled)
        let frac = String(magnitude % scale)
        let padded = String(repeating: "0", count: max(0, decimals - frac.count)) + frac
        // The sign goes on explicitly: integer division loses it for values in (-1, 0).
        return "\(scaled < 0 ? "-" : "")\(magnitude / scale).\(padded)"
    }
}

/// Quotes an attribute value (RFC 8216bis §4.2 quoted-string: no CR, LF or double quote).
func quoted(_ s: String) -> String { "\"\(s)\"" }
