import MediaCore

/// Renders durations as HLS decimal-floating-point (RFC 8216bis §4.2) with a fixed precision.
public enum PlaylistDecimal {
    /// Five decimals keep part sums within 0.05 ms of their parent's EXTINF.
    public static func format(_ t: MediaTime, decimals: Int = 5) -> String {
        format(seconds: t.seconds, decimals: decimals)
    }

    /// Fixed-point rendering without Foundation's locale-dependent formatters.
    public static func format(seconds: Double, decimals: Int = 5) -> String {
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int64((seconds * Double(scale)).rounded())
        let magnitude = abs(scaled)
        let frac = String(magnitude % scale)
        let padded = String(repeating: "0", count: max(0, decimals - frac.count)) + frac
        // The sign goes on explicitly: integer division loses it for values in (-1, 0).
        return "\(scaled < 0 ? "-" : "")\(magnitude / scale).\(padded)"
    }
}

/// Quotes an attribute value (RFC 8216bis §4.2 quoted-string: no CR, LF or double quote).
func quoted(_ s: String) -> String { "\"\(s)\"" }
