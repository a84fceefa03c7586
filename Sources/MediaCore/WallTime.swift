#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A wall-clock instant (UTC), nanoseconds since the Unix epoch; used for PDT and capture times.
public struct WallTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Nanoseconds since 1970-01-01T00:00:00Z.
    public var nanosecondsSince1970: Int64

    /// Creates an instant from nanoseconds since the epoch.
    public init(nanosecondsSince1970: Int64) { self.nanosecondsSince1970 = nanosecondsSince1970 }

    /// Creates an instant from milliseconds since the epoch.
    public init(millisecondsSince1970: Int64) { self.nanosecondsSince1970 = millisecondsSince1970 * 1_000_000 }

    /// The current time from the system realtime clock.
    public static func now() -> WallTime {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return WallTime(nanosecondsSince1970: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }

    /// Milliseconds since the epoch.
    public var millisecondsSince1970: Int64 { nanosecondsSince1970 / 1_000_000 }

    /// This instant moved by `d`.
    public func advanced(by d: Duration) -> WallTime {
        let (s, atto) = d.components
        return WallTime(nanosecondsSince1970: nanosecondsSince1970 + s * 1_000_000_000 + atto / 1_000_000_000)
    }

    /// The span from `other` to this instant.
    public func duration(since other: WallTime) -> Duration {
        .nanoseconds(nanosecondsSince1970 - other.nanosecondsSince1970)
    }

    public static func < (lhs: WallTime, rhs: WallTime) -> Bool {
        lhs.nanosecondsSince1970 < rhs.nanosecondsSince1970
    }

    /// ISO 8601 with milliseconds and a Z zone, as EXT-X-PROGRAM-DATE-TIME requires (RFC 8216bis §4.4.4.6).
    public var iso8601: String {
        var seconds = time_t(nanosecondsSince1970 / 1_000_000_000)
        let ms = Int((nanosecondsSince1970 / 1_000_000) % 1_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ v: Int32, _ w: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(ms), 3))Z"
    }

    /// Reads what `iso8601` writes (`2026-11-26T08:15:00.123Z`); nil for anything else.
    public init?(iso8601 text: some StringProtocol) {
        let n = text.split(whereSeparator: { "-T:.Z".contains($0) }).compactMap { Int64($0) }
        guard n.count == 7, text.hasSuffix("Z") else { return nil }
        // Out-of-range fields are not a time; nanoseconds in an Int64 reach 1678…2262.
        guard (1700...2200).contains(n[0]), (1...12).contains(n[1]), (1...31).contains(n[2]), (0...23).contains(n[3]),
            (0...59).contains(n[4]), (0...60).contains(n[5]), (0...999).contains(n[6])
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(n[0] - 1900)
        parts.tm_mon = Int32(n[1] - 1)
        parts.tm_mday = Int32(n[2])
        parts.tm_hour = Int32(n[3])
        parts.tm_min = Int32(n[4])
        parts.tm_sec = Int32(n[5])
        // timegm is gmtime_r's inverse: the same calendar arithmetic as the writer.
        let seconds = Int64(timegm(&parts))
        self.init(millisecondsSince1970: seconds * 1000 + n[6])
    }

    public var description: String { iso8601 }
}
