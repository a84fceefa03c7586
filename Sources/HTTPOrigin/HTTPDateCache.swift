import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// RFC 9110 §5.6.7: the `Date` field as IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), formatted once per second.
final class HTTPDateCache: Sendable {
    private let kept = Mutex<(second: Int, text: String)>((-1, ""))

    /// The current second, formatted.
    var now: String {
        let second = time(nil)
        return kept.withLock { k in
            if k.second == second { return k.text }
            k = (second, Self.format(second))
            return k.text
        }
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `second` (since 1970, UTC) as IMF-fixdate.
    static func format(_ second: Int) -> String {
        var t = time_t(second)
        var c = tm()
        gmtime_r(&t, &c)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let day = days[Int(c.tm_wday)]
        let month = months[Int(c.tm_mon)]
        let clock = "\(two(c.tm_hour)):\(two(c.tm_min)):\(two(c.tm_sec))"
        return "\(day), \(two(c.tm_mday)) \(month) \(c.tm_year + 1900) \(clock) GMT"
    }
}
