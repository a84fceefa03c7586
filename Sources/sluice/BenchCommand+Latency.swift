import ArgumentParser
import Foundation
import HTTPClient
import Logging
import SluiceBench
import Synchronization

/// `sluice bench [--scenarios a,b] [--player model,hlsjs,hlsjs-stock,native] [--duration S] [--json F] [--svg F]
/// [--gateway URL --rtmp URL [--gateway-pid PID]] [--whep-viewers N] [--whep-watch URL]`: the latency scenarios (or
/// WHEP viewers of a running stream); this parses options, SluiceBench does the work.
struct LatencyBenchOptions: ParsableArguments {
    @Option(help: "Comma-separated latency scenarios (default: every available one). See --list-scenarios.")
    var scenarios: String?

    @Flag(help: "List the latency scenarios, whether each can run here, and exit.")
    var listScenarios = false

    @Option(help: "Write the latency report as JSON to this file.")
    var json: String?

    @Option(help: "Write the latency comparison as an SVG chart to this file.")
    var svg: String?

    @Option(
        help: "With --gateway (latency scenarios): the gateway's RTMP application URL (default rtmp://HOST:1935/live)."
    )
    var rtmp: String?

    @Option(
        help:
            "Who watches, comma-separated: model (the bench's own viewers, default), hlsjs (hls.js in headless Chromium with the watch page's settings and keeper), hlsjs-stock (hls.js with only lowLatencyMode, as a third-party page embeds it), native (Chromium's <video>)."
    )
    var player = "model"

    @Option(help: "With --player hlsjs: the hls.js chunk (default .build/hlsjs/hls-chunk.js; `make hlsjs` writes it).")
    var hlsjs: String?

    @Option(help: "Size of the published test pattern, WIDTHxHEIGHT.")
    var source = "1280x720"

    @Option(help: "Model viewers per scenario, each joining at a random phase.")
    var modelViewers = 4

    @Option(
        help:
            "WHEP scenarios (rtmp-whep, rtmp-whep-ladder, whip-whep): bench WHEP viewers of the one stream (fan-out load)."
    )
    var whepViewers = 4

    @Option(help: "With --gateway (or --whep-watch): the gateway's process id, so WHEP rows report its CPU per viewer.")
    var gatewayPid: Int32?

    @Option(
        help:
            "Instead of scenarios: watch this running stream's WHEP endpoint (http://HOST:PORT/whep/KEY) with --whep-viewers bench viewers for --duration."
    )
    var whepWatch: String?

    @Option(
        help:
            "With --player hlsjs|hlsjs-stock|native: write each run's raw trace (every presented frame and player event) as JSON into this folder."
    )
    var playerTrace: String?

    /// Latency scenarios publish this long when --duration is not given (the viewer then watches >= 20 s).
    static let defaultDuration = 30.0

    /// The chosen scenarios, in table order.
    func chosen() throws -> [BenchScenario] {
        guard let list = scenarios else { return BenchScenario.all.filter { $0.unavailableReason == nil } }
        return try list.split(separator: ",").map { name in
            let id = name.trimmingCharacters(in: .whitespaces)
            guard let s = BenchScenario.named(id) else {
                throw ValidationError(
                    "unknown scenario '\(id)'; known: \(BenchScenario.all.map(\.id).joined(separator: ", "))"
                )
            }
            return s
        }
    }

    /// Runs the scenarios, prints the table, writes the files; fails when a scenario asked for failed.
    func run(gateway: String?, duration: Double) throws {
        if listScenarios {
            for s in BenchScenario.all {
                print(
                    "\(s.id.padding(toLength: 20, withPad: " ", startingAt: 0)) \(s.unavailableReason.map { "unavailable: \($0)" } ?? "available")  \(s.title)"
                )
            }
            return
        }
        guard duration >= 5 else {
            throw ValidationError("--duration must be at least 5 seconds for latency scenarios")
        }
        var options = BenchOptions(
            scenarios: try chosen(),
            command: (["sluice"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
        )
        options.duration = .milliseconds(Int64(duration * 1000))
        if let gateway {
            // Accept any URL on the gateway (a playlist too): the origin is what matters.
            guard let location = HTTPLocation(gateway) else {
                throw ValidationError("--gateway: not an http(s)://HOST[:PORT] URL: \(gateway)")
            }
            options.gateway = location
        }
        options.rtmp = rtmp
        options.players = try player.split(separator: ",").map { name in
            guard let p = PlayerKind(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError(
                    "--player: unknown player '\(name)'; known: \(PlayerKind.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            return p
        }
        let size = source.split(separator: "x").compactMap { Int($0) }
        guard size.count == 2, size[0] >= 64, size[1] >= 64, size[0] % 2 == 0, size[1] % 2 == 0 else {
            throw ValidationError("--source: expected WIDTHxHEIGHT with even sides, e.g. 854x480")
        }
        (options.sourceWidth, options.sourceHeight) = (size[0], size[1])
        guard modelViewers > 0 else { throw ValidationError("--model-viewers must be positive") }
        options.modelViewers = modelViewers
        guard whepViewers > 0 else { throw ValidationError("--whep-viewers must be positive") }
        options.whepViewers = whepViewers
        options.gatewayPID = gatewayPid
        if let whepWatch {
            guard let url = HTTPLocation(whepWatch), url.path.contains("/whep/") else {
                throw ValidationError("--whep-watch: expected http://HOST:PORT/whep/KEY, got \(whepWatch)")
            }
            options.whepWatch = url
        }
        options.hlsjsPath = hlsjs
        options.traceDirectory = playerTrace
        var logger = Logger(label: "sluice-bench")
        logger.logLevel = .error
        let runner = BenchRunner(options: options, logger: logger)
        let box = Mutex<BenchReport?>(nil)
        let done = DispatchSemaphore(value: 0)
        // Detached: run() is on the main actor, which the semaphore below holds.
        Task.detached {
            let report = await runner.run()
            box.withLock { $0 = report }
            done.signal()
        }
        done.wait()
        guard let report = box.withLock({ $0 }) else { return }
        print(BenchTable.text(report), terminator: "")
        if let json { try Data(try report.json()).write(to: URL(fileURLWithPath: json)) }
        if let svg { try Data(BenchSVG.render(report).utf8).write(to: URL(fileURLWithPath: svg)) }
        let failed = report.scenarios.filter { $0.skipped?.hasPrefix("failed") ?? false }
        if !failed.isEmpty { throw ExitCode(1) }
    }
}
