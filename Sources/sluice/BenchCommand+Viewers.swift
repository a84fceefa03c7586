import ArgumentParser
import Foundation
import HTTPClient
import Logging
import SluiceBench

/// `sluice bench --viewers N`: hold N LL-HLS viewers on one origin (or edge) and measure part delivery.
struct ViewerLoadOptions: ParsableArguments {
    @Option(help: "Hold N LL-HLS viewers (blocking reload + part each) and report delivery delay, CPU and RSS.")
    var viewers: Int?

    @Option(
        help: "With --viewers: media or multivariant playlist URL (default: an embedded gateway with the test pattern)."
    )
    var gateway: String?

    @Option(help: "With --viewers: measured seconds, after ramp-up and 3 s of warm-up.")
    var duration: Double = 20

    @Option(help: "With --viewers and --gateway: the origin's process id, for its CPU and RSS.")
    var originPid: Int32?

    @Flag(
        help:
            "With --viewers: --gateway serves static copies (the nginx anchor); poll playlist + newest part each part target."
    )
    var staticAnchor = false

    @Option(help: "With --viewers: viewers started per second.")
    var rampPerSecond = 2_000

    @Option(help: "With --viewers: also write the report as JSON to this file.")
    var reportJson: String?

    @Flag(inversion: .prefixedNo, help: "With --viewers: each viewer also follows the audio playlist, as players do.")
    var viewerAudio = true

    /// Runs the load and prints the report.
    func run() throws {
        guard let n = viewers, n > 0 else { throw ValidationError("--viewers needs a positive count") }
        var c = LoadGeneratorConfiguration()
        c.viewers = n
        c.duration = .milliseconds(Int64(duration * 1000))
        c.originPID = originPid
        c.live = !staticAnchor
        c.rampPerSecond = rampPerSecond
        c.audio = viewerAudio
        if let gateway {
            do { c.gateway = try HTTPLocation(parsing: gateway) } catch { throw ValidationError("--gateway: \(error)") }
        } else if staticAnchor {
            throw ValidationError("--static-anchor needs --gateway (the static server's playlist URL)")
        }
        var logger = Logger(label: "sluice-bench")
        logger.logLevel = .warning
        let box = ReportBox()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { box.set(.success(try await LoadGenerator.run(c, logger: logger))) } catch { box.set(.failure(error)) }
            done.signal()
        }
        done.wait()
        let report = try box.get()
        print(Self.describe(report, configuration: c))
        if let reportJson {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            // A percentile that lands on a miss is infinite.
            encoder.nonConformingFloatEncodingStrategy = .convertToString(
                positiveInfinity: "inf",
                negativeInfinity: "-inf",
                nan: "nan"
            )
            try encoder.encode(report).write(to: URL(fileURLWithPath: reportJson))
        }
    }

    static func describe(_ r: LoadGeneratorReport, configuration c: LoadGeneratorConfiguration) -> String {
        func f(_ v: Double?, _ digits: Int = 1) -> String { v.map { String(format: "%.\(digits)f", $0) } ?? "n/a" }
        var lines = [
            "viewers        \(r.viewers) (\(r.activeViewers) received parts in the window), \(f(r.seconds, 0)) s window",
            "target         \(c.gateway.map { "\($0)" } ?? "embedded gateway, test pattern 720p30, PART-TARGET \(c.partTarget)")",
            "delivery       p50 \(f(r.delay?.p50Ms)) ms  p90 \(f(r.delay?.p90Ms)) ms  p99 \(f(r.delay?.p99Ms)) ms  max \(f(r.delayMaxMs)) ms  (\(r.parts) parts)",
            "with misses    p50 \(f(r.delayCountingMisses?.p50Ms)) ms  p90 \(f(r.delayCountingMisses?.p90Ms)) ms  p99 \(f(r.delayCountingMisses?.p99Ms)) ms  (\(r.misses) failed or timed-out fetches in the window ranked last, as infinite)",
            "published      \(r.publication)\(r.audioFollowed ? "; each viewer follows video and audio" : "")",
            "requests       \(r.requests), errors \(r.errors)",
        ]
        if r.originCPUPercent != nil || r.originRSSAfterKiB != nil {
            let who =
                c.gateway == nil ? "process (origin + viewers)" : "origin pid \(c.originPID.map(String.init) ?? "?")"
            lines.append(
                "\(who): CPU \(f(r.originCPUPercent)) % of a core (idle stream \(f(r.originIdleCPUPercent)) %), RSS "
                    + "\(r.originRSSBeforeKiB.map { "\($0 / 1024)" } ?? "?") -> \(r.originRSSAfterKiB.map { "\($0 / 1024)" } ?? "?") MiB, "
                    + "\(f(r.rssPerViewerKiB)) KiB per viewer"
            )
        }
        if let g = r.generatorCPUPercent { lines.append("load generator CPU \(f(g)) % of a core") }
        let met = (r.delayCountingMisses?.p99Ms ?? .infinity) <= 50
        lines.append("p99 <= 50 ms (misses counted): \(met ? "yes" : "no")")
        return lines.joined(separator: "\n")
    }
}

/// Carries the async result back to the synchronous command.
private final class ReportBox: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<LoadGeneratorReport, any Error>?
    func set(_ r: Result<LoadGeneratorReport, any Error>) { lock.withLock { result = r } }
    func get() throws -> LoadGeneratorReport { try lock.withLock { result }!.get() }
}
