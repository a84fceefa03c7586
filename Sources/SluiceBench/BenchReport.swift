import Foundation

/// What one scenario measured with one player; the row of the table, an entry of `--json`, a bar of `--svg`.
///
/// Every capture time is the publisher's clock taken when the test pattern made the picture, before encoding.
public struct ScenarioResult: Sendable, Codable, Equatable {
    /// Scenario name (`rtmp-llhls-ladder`).
    public var id: String
    /// One-line description.
    public var title: String
    /// Who watched: the bench's model viewers, hls.js or Chromium's native player.
    public var player: PlayerKind = .model
    /// Set when the scenario did not run or failed; the numbers are then absent.
    public var skipped: String?
    /// What was played: the model's rendition (`video`, `480p`; the key for nginx), or the URL a browser opened.
    public var rendition: String?
    /// Gateway hops by name (`ingest`, `decode`, `encode`, `package`, `deliver`), from the gateway's own clocks.
    public var hops: [String: LatencyPercentiles] = [:]
    /// Model viewers that watched (each joined at its own random phase).
    public var viewers = 0
    /// Capture → the frame's part or segment fully downloaded by a model viewer (frames captured after it joined).
    public var downloaded: LatencyPercentiles?
    /// Glass to glass: capture → frame shown. Real players: presented by the browser, clock read from the pixels;
    /// model: the instant the player model shows it, clock read from the SEI.
    public var glass: LatencyPercentiles?
    /// Publish start → the media playlist first lists a part (segment for classic HLS), polled by the bench.
    public var publishToPlayableMs: Double?
    /// Publish start → the first frame a real player presented (the page was loaded and told to play when the
    /// publisher started).
    public var publishToFirstFrameMs: Double?
    /// Viewer join on a running stream → its first frame shown: a second real player opened on the running
    /// stream; for the model, the median over its viewers of the modelled first display.
    public var joinToFirstFrameMs: Double?
    /// Real players: the joining viewer's glass to glass (capture → shown), over the frames it presented after its
    /// first, clock read from the pixels; absent for the model.
    public var joinGlass: LatencyPercentiles?
    /// Frames with a capture time: received by the model viewers, or presented by the real player.
    public var frames = 0
    /// Real player: frames presented whose pixel clock could not be read, and frames presented without a callback.
    public var unreadableFrames = 0
    public var missedFrames = 0
    /// Stalls (real: `waiting` events after the first frame; model: the next frame had not arrived) and their
    /// summed length.
    public var stalls = 0
    public var stalledMs = 0.0
    /// Real player: changes of the presented picture height, and the heights presented in first-seen order.
    public var renditionSwitches = 0
    public var heights: [Int] = []
    /// Real player (hls.js): media playlist load errors and timeouts.
    public var levelLoadErrors = 0
    /// Real player: fatal errors (the page then restarts the player), and how many errors of any kind came before
    /// its first frame (a stream that is not up yet answers 404).
    public var fatalErrors = 0
    public var startupErrors = 0
    /// Real player: errors at or after the publisher stopped (the stream is gone); in `errorCount`, not in the
    /// level load, fatal or startup counts.
    public var afterEndErrors = 0
    /// Errors of any kind (HTTP, media, player events), all counted.
    public var errorCount = 0
    /// HTTP requests the model viewers made.
    public var requests = 0
    /// The first errors, to read.
    public var errors: [String] = []
    /// WHEP scenarios: the bench WHEP viewers' glass and join with p95, loss, what they were sent, CPU per viewer.
    public var whep: WHEPFigures?

    /// An empty result for `scenario`, watched by `player`.
    public init(scenario: BenchScenario, player: PlayerKind = .model) {
        id = scenario.id
        title = scenario.title
        self.player = player
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
    /// The published test pattern (`1280x720@30, GOP 30, no B-frames`).
    public var source: String = ""
    /// `uptime`'s load averages (1, 5, 15 min) when the run started and ended: the machine may be shared.
    public var loadBefore: [Double] = []
    public var loadAfter: [Double] = []
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

    /// The 1, 5 and 15 minute load averages (`/proc/loadavg`).
    public static func loadAverage() -> [Double] {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).compactMap { Double($0) }
    }

    /// The machine this runs on, in one line: kernel, CPU model and count.
    public static func describeMachine() -> String {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let memory = ProcessInfo.processInfo.physicalMemory / (1 << 30)
        var u = utsname()
        uname(&u)
        let release = withUnsafeBytes(of: &u.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return "\(model), \(cores) cores, \(memory) GiB, Linux \(release)"
    }
}
