import Foundation
import MediaCore

#if canImport(Glibc)
import Glibc
#endif

/// proc(5): CPU time and resident memory of one process, read from `/proc/PID/stat` and `/proc/PID/status`.
/// The bench's one reader of process usage (load generator CPU, transcode bench peak RSS).
struct ProcessUsage: Sendable {
    /// utime + stime, seconds.
    var cpuSeconds: Double
    /// VmRSS, KiB.
    var rssKiB: Int
    /// VmHWM (peak resident set, what getrusage's ru_maxrss reports), KiB.
    var peakRSSKiB: Int
    /// When it was read.
    var at: ContinuousClock.Instant

    /// Reads the process `pid` ("self" for this one); nil when it is gone or unreadable.
    static func read(pid: String) -> ProcessUsage? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after "comm)": state is field 3, utime 14, stime 15 (proc(5)); comm may hold spaces.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let utime = Double(fields[11]), let stime = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        func kiB(_ field: String) -> Int {
            status.split(separator: "\n").first { $0.hasPrefix(field) }
                .flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        }
        return ProcessUsage(
            cpuSeconds: (utime + stime) / ticks,
            rssKiB: kiB("VmRSS:"),
            peakRSSKiB: kiB("VmHWM:"),
            at: .now
        )
    }

    /// Percent of one core used between two readings.
    static func cpuPercent(from a: ProcessUsage, to b: ProcessUsage) -> Double {
        let wall = (b.at - a.at).secondsDouble
        return wall > 0 ? (b.cpuSeconds - a.cpuSeconds) / wall * 100 : 0
    }

    /// Raises the open-file limit to the hard limit (each viewer holds one socket); returns the new soft limit.
    @discardableResult
    static func raiseOpenFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return Int(limit.rlim_cur)
    }
}
