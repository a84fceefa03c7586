import Foundation

/// What one scenario measured; the row of the table, an entry of `--json`, a bar of `--svg`.
public struct ScenarioResult: Sendable, Codable, Equatable {
    /// Scenario name (`rtmp-llhls-ladder`).
    public var id: String
    /// One-line description.
    public var title: String
    /// Set when the scenario did not run or failed; the numbers are then absent.
    public var skipped: String?
    /// The rendition the viewer followed (`video`, `480p`; `index` for nginx).
    public var rendition: String?
    /// Gateway hops by name (`ingest`, `decode`, `encode`, `package`, `deliver`, and the gateway's `available`).
    public var hops: [String: LatencyPercentiles] = [:]
    /// Capture → frame downloadable by the viewer (its part or segment fully received).
    public var available: LatencyPercentiles?
    /// Capture → the frame shown by a player that behaves like the viewer (hls.js low-latency or classic).
    public var player: LatencyPercentiles?
    /// Publish start → first playable part (or segment) listed in the media playlist, milliseconds.
    public var ttffPublishMs: Double?
    /// Viewer join → first frame displayed, milliseconds.
    public var ttffJoinMs: Double?
    /// Frames the viewer received with a capture time.
    public var frames = 0
    /// Viewer stalls (waited for media it should have had).
    public var stalls = 0
    /// HTTP requests the viewer made.
    public var requests = 0
    /// Viewer and gateway errors worth reading.
    public var errors: [String] = []

    /// An empty result for `scenario`.
    public init(scenario: BenchScenario) {
        id = scenario.id
        title = scenario.title
    }
}

/// A whole `sluice bench` run.
public struct BenchReport: Sendable, Codable, Equatable {
    /// ISO 8601 start of the run.
    public var date: String
    /// `uname` and CPU model of the machine.
    public var machine: String
    /// Publishing time per scenario, seconds.
    public var durationSeconds: Double
    /// The command line.
    public var command: String
    /// One result per scenario asked for, in order.
    public var scenarios: [ScenarioResult]

    /// Creates a report.
    public init(date: String, machine: String, durationSeconds: Double, command: String, scenarios: [ScenarioResult]) {
        self.date = date
        self.machine = machine
        self.durationSeconds = durationSeconds
        self.command = command
        self.scenarios = scenarios
    }

    /// Pretty, key-sorted JSON (stable diffs when committed).
    public func json() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return Array(try encoder.encode(self)) + [0x0A]
    }

    /// The machine this runs on, in one line: kernel, CPU model and count.
    public static func describeMachine() -> String {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let memory = ProcessInfo.processInfo.physicalMemory / (1 << 30)
        var u = utsname()
        uname(&u)
        let release = withUnsafeBytes(of: &u.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return "\(model), \(cores) cores, \(memory) GiB, Linux \(release)"
    }
}
