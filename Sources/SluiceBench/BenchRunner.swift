import Foundation
import HTTPClient
import LLHLSPackager
import Logging
import MediaCore
import MediaSources
import RTMPPublish
import SRTPublish
import SluiceApp
import StreamHub
import Synchronization
import Transcoder
import WHIPPublish

/// What a `sluice bench` latency run does.
public struct BenchOptions: Sendable {
    /// Scenarios in run order; unavailable ones are reported as skipped.
    public var scenarios: [BenchScenario]
    /// Publishing time per scenario.
    public var duration: Duration = .seconds(30)
    /// An external gateway (any URL on it: its origin is what counts) instead of the embedded one.
    public var gateway: HTTPLocation?
    /// The external gateway's RTMP application URL (`rtmp://host:1935/live`); defaults to the gateway host, port 1935.
    public var rtmp: String?
    /// The command line, recorded in the report.
    public var command: String
    /// Who watches each scenario, in turn (each player gets its own publish run).
    public var players: [PlayerKind] = [.model]
    /// Model viewers per scenario, each joining at a random phase after the warm-up.
    public var modelViewers = 4
    /// The hls.js chunk (`make hlsjs`); nil looks in .build/hlsjs/ beside the executable and the working folder.
    public var hlsjsPath: String?
    /// Where to write each real-player run's raw trace (`<scenario>-<player>.json`: every presented frame and
    /// event), for checking the figures independently; nil writes nothing.
    public var traceDirectory: String?
    /// Bench WHEP viewers of the one stream in each WHEP scenario (fan-out load), joining within `joinSpread`.
    public var whepViewers = 4
    /// The external gateway's process id, so WHEP scenarios report its CPU per viewer (the embedded gateway's is
    /// this process's, which also runs the publisher and the viewers).
    public var gatewayPID: Int32?
    /// A running stream's WHEP endpoint (`http://HOST:PORT/whep/KEY`) to watch with `whepViewers` bench viewers
    /// for `duration` instead of running scenarios: fan-out load on any publisher's stream (no capture clock).
    public var whepWatch: HTTPLocation?
    /// Size of the published test pattern.
    public var sourceWidth = 1280
    public var sourceHeight = 720

    /// Options for `scenarios`.
    public init(scenarios: [BenchScenario], command: String) {
        self.scenarios = scenarios
        self.command = command
    }
}

/// Runs the latency scenarios one after the other: a gateway (embedded, external, or nginx-rtmp), the test
/// pattern published in real time with its capture clock in SEI, a viewer from the moment the stream is playable.
public struct BenchRunner: Sendable {
    /// The test pattern at 30 fps, 1 s GOP, no B-frames, with a 440 Hz AAC tone.
    var source: PublishInput {
        .testPattern(width: options.sourceWidth, height: options.sourceHeight, fps: 30, gopFrames: 30, bFrames: 0)
    }
    /// What `scenario` publishes: the test pattern in its source codec and B-frames (AV1: SVT-AV1's low-delay
    /// structure, none).
    static func source(for scenario: BenchScenario, options: BenchOptions) -> PublishInput {
        .testPattern(
            width: options.sourceWidth,
            height: options.sourceHeight,
            fps: 30,
            gopFrames: 30,
            bFrames: scenario.sourceBFrames,
            codec: scenario.sourceCodec
        )
    }
    /// Model viewers join within this long after the warm-up, each at a random instant (random part phase).
    static let joinSpread: Duration = .seconds(2)
    /// Publishing time before the viewer joins (at most half the run): a full HOLD-BACK of segments and some.
    static let warmUp: Duration = .seconds(8)
    /// How long the viewer keeps watching after the publisher stopped (the last parts still arrive).
    static let tail: Duration = .seconds(1)

    let options: BenchOptions
    let logger: Logger
    private let progress = BenchProgress()

    /// A runner; `logger` is for the viewers and the embedded gateway (warnings and up are worth showing).
    public init(options: BenchOptions, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// Runs every scenario with every player; failures become results with `skipped` set, so one broken path
    /// never hides the rest.
    public func run() async -> BenchReport {
        let date = WallTime.now().iso8601
        let loadBefore = BenchReport.loadAverage()
        var results: [ScenarioResult] = []
        if let url = options.whepWatch { return await watchExisting(url, date: date, loadBefore: loadBefore) }
        let runs = options.scenarios.flatMap { s in options.players.map { (s, $0) } }
        var hlsjs: Result<[UInt8], BenchError>?
        if options.players.contains(where: \.usesHLSJS) { hlsjs = HLSJSChunk.load(options.hlsjsPath) }
        for (i, (scenario, player)) in runs.enumerated() {
            var result = ScenarioResult(scenario: scenario, player: player)
            let tag = "[\(i + 1)/\(runs.count)] \(scenario.id) \(player)"
            if let why = scenario.unavailableReason {
                result.skipped = why
                progress.finish("\(tag): skipped, \(why)")
            } else if scenario.isWHEP && player != .model {
                result.skipped = "WHEP rows are watched by the bench's own WHEP client (--player model)"
                progress.finish("\(tag): skipped, \(result.skipped ?? "")")
            } else {
                do {
                    let chunk = try player.usesHLSJS ? hlsjs?.get() : nil
                    result = try await run(scenario, player: player, hlsjs: chunk, tag: tag)
                    progress.finish(
                        "\(tag): done" + (result.glass.map { ", glass p50 \(BenchTable.ms($0.p50Ms)) ms" } ?? "")
                    )
                } catch {
                    result.skipped = "failed: \(error)"
                    progress.finish("\(tag): failed, \(error)")
                }
            }
            results.append(result)
        }
        var report = BenchReport(
            date: date,
            machine: BenchReport.describeMachine(),
            durationSeconds: options.duration.milliseconds / 1000,
            command: options.command,
            scenarios: results
        )
        report.source = "\(source)"
        report.loadBefore = loadBefore
        report.loadAfter = BenchReport.loadAverage()
        return report
    }

    /// One scenario from gateway start to gateway stop.
    func run(
        _ scenario: BenchScenario,
        player: PlayerKind,
        hlsjs: [UInt8]?,
        tag: String
    ) async throws(BenchError)
        -> ScenarioResult
    {
        let key = "bench-\(scenario.id)-\(UInt32.random(in: 0...UInt32.max))"
        switch scenario.path {
        case .nginxRTMP(let fragment):
            let anchor = try NginxRTMPAnchor(fragment: .seconds(fragment))
            defer { anchor.stop() }
            try await anchor.waitUntilReady()
            let watch = Watch(
                player: player,
                hlsjs: hlsjs,
                media: anchor.playlistURL(key: key),
                entry: anchor.playlistURL(key: key)
            )
            var result = try await measure(scenario, watch, tag: tag, publishURL: anchor.rtmpURL(key: key))
            result.rendition = player == .model ? "\(key).m3u8" : watch.entry
            return result
        case .sluice, .whip, .srt, .whep:
            let named =
                switch scenario.path {
                case .sluice(_, _, let n), .whip(_, let n), .srt(_, let n): n
                case .whep, .nginxRTMP: "video"
                }
            // The model follows the top transcoded rung: 480p for a 720p source, 360p for an 854x480 one.
            let rendition = named == "video" ? named : Self.topRung(below: options.sourceHeight) ?? named
            var lowLatency = true
            var transcode = false
            var overWHIP = false
            var overSRT = false
            switch scenario.path {
            case .sluice(let ll, let t, _): (lowLatency, transcode) = (ll, t)
            case .whip(let t, _): (transcode, overWHIP) = (t, true)
            case .srt(let t, _): (transcode, overSRT) = (t, true)
            case .whep(let w, let t, _): (transcode, overWHIP) = (t, w)
            case .nginxRTMP: break
            }
            var embedded: ScenarioGateway?
            let httpBase: String
            let rtmpBase: String
            var srtBase = ""
            if let external = options.gateway {
                httpBase = external.origin
                rtmpBase = options.rtmp ?? "rtmp://\(external.host):1935/live"
                srtBase = "srt://\(external.host):8890"
            } else {
                // SLUICE_* variables tune the embedded gateway as they tune `serve` (no file is read).
                var c: SluiceConfiguration
                do {
                    c = try SluiceConfiguration.parse(yaml: "", environment: ProcessInfo.processInfo.environment)
                } catch {
                    throw .gatewayFailed("SLUICE_* environment: \(error)")
                }
                c.hls.lowLatency = lowLatency
                c.transcode = transcode
                // A path is measured on the publisher's frames: when it ends, the stream ends (no slate after it).
                c.onAir.slate = false
                // The gateway's own shutdown chatter (cancelled channels) says nothing about latency.
                var quiet = logger
                quiet.logLevel = .critical
                let gateway = try await ScenarioGateway.start(c, logger: quiet)
                embedded = gateway
                httpBase = gateway.httpBase
                rtmpBase = gateway.rtmpBase
                srtBase = gateway.srtBase
            }
            do {
                let watch = Watch(
                    player: player,
                    hlsjs: hlsjs,
                    media: "\(httpBase)/live/\(key)/\(rendition).m3u8",
                    entry: "\(httpBase)/live/\(key)/index.m3u8"
                )
                var result = try await measure(
                    scenario,
                    watch,
                    tag: tag,
                    whep: "\(httpBase)/whep/\(key)",
                    publishURL: overWHIP
                        ? "\(httpBase)/whip/\(key)"
                        : overSRT
                            ? "\(srtBase)?streamid=#!::r=live/\(key),m=publish&latency=120" : "\(rtmpBase)/\(key)"
                )
                result.rendition = player == .model ? rendition : watch.entry
                result.hops = try await gatewayHops(httpBase: httpBase, key: key, rendition: rendition)
                await embedded?.stop()
                return result
            } catch {
                await embedded?.stop()
                throw error
            }
        }
    }

    /// Who watches and what: the media playlist the model follows, the URL a browser opens (multivariant for Sluice).
    struct Watch {
        var player: PlayerKind
        var hlsjs: [UInt8]?
        var media: String
        var entry: String
    }

    /// Publishes for the run's duration and watches: model viewers from the warm-up on, or a real player from the
    /// publish start (plus a second one joining after the warm-up).
    private func measure(
        _ scenario: BenchScenario,
        _ watch: Watch,
        tag: String,
        whep: String? = nil,
        publishURL: String
    ) async throws(BenchError) -> ScenarioResult {
        let clock = ContinuousClock()
        let duration = options.duration
        let phase = Mutex("starting")
        // The E-RTMP scenarios encode the same live pattern (pixel clock and all) with libx265 or SVT-AV1.
        let source = Self.source(for: scenario, options: options)
        var browser: RealPlayerSession?
        if watch.player.isBrowser {
            phase.withLock { $0 = "starting headless Chromium" }
            browser = try await RealPlayerSession.open(player: watch.player, hlsjs: watch.hlsjs, url: watch.entry)
        }
        let start = clock.now
        let publishStart = WallTime.now()
        browser?.go()
        let publisher = Task { () -> Result<Void, BenchPublishFailure> in
            await Self.publish(source, to: publishURL, duration: duration, logger: logger)
        }
        let ticker = Task {
            while !Task.isCancelled {
                let elapsed = Int((clock.now - start).milliseconds / 1000)
                progress.update("\(tag): \(elapsed)/\(Int(duration.milliseconds / 1000)) s, \(phase.withLock { $0 })")
                try? await Task.sleep(for: progress.interval)
            }
        }
        defer { ticker.cancel() }
        var result = ScenarioResult(scenario: scenario, player: watch.player)
        phase.withLock { $0 = "waiting for the first playable playlist" }
        let playable = await firstPlayable(
            watch.media,
            lowLatency: scenario.lowLatencyViewer,
            until: start + duration + .seconds(10)
        )
        guard let playable else {
            publisher.cancel()
            await browser?.close()
            if case .failure(let e) = await publisher.value {
                throw .gatewayFailed("publishing to \(publishURL) failed: \(e)")
            }
            throw .badPlaylist(url: watch.media, reason: "no media listed within the run")
        }
        result.publishToPlayableMs = (playable - start).milliseconds
        // Viewers join a running stream: one that joined the very first segment of a short playlist (nginx lists
        // it at once, Sluice holds it for HOLD-BACK) would sit closer to the edge than any later viewer.
        let warmUp = min(Self.warmUp, duration / 2)
        if let browser {
            phase.withLock { $0 = "\(watch.player) playing" }
            try? await clock.sleep(until: start + warmUp)
            browser.join()
            try? await clock.sleep(until: start + duration + Self.tail)
            var trace = await browser.finish()
            trace.publishStart = Double(publishStart.nanosecondsSince1970) / 1e6
            if let dir = options.traceDirectory {
                try Self.write(trace, to: "\(dir)/\(scenario.id)-\(watch.player).json")
            }
            if case .failure(let e) = await publisher.value {
                throw .gatewayFailed("publishing to \(publishURL) failed: \(e)")
            }
            let publishEnd = Double(publishStart.advanced(by: duration).nanosecondsSince1970) / 1e6
            result.apply(PlayerFigures(trace, publishStart: trace.publishStart ?? 0, publishEnd: publishEnd))
            return result
        }
        if case .whep(_, _, let profiles) = scenario.path, let whep {
            phase.withLock { $0 = "warming up (gateway CPU without viewers)" }
            let joinFrom: ContinuousClock.Instant = start + warmUp
            let publisherEnds: ContinuousClock.Instant = start + duration
            let (results, figures) = try await watchWithWHEP(
                endpoint: whep,
                profiles: profiles,
                from: joinFrom,
                until: publisherEnds + Self.tail,
                publisherEnds: publisherEnds,
                phase: phase
            )
            if case .failure(let e) = await publisher.value {
                throw .gatewayFailed("publishing to \(publishURL) failed: \(e)")
            }
            result.apply(results, figures: figures)
            return result
        }
        if clock.now < start + warmUp {
            phase.withLock { $0 = "warming up" }
            try? await clock.sleep(until: start + warmUp)
        }
        phase.withLock {
            $0 =
                "\(options.modelViewers) model viewers watching \(scenario.lowLatencyViewer ? "(LL-HLS)" : "(classic)")"
        }
        let deadline = start + duration + Self.tail
        let reports = try await watchWithModels(
            scenario,
            url: watch.media,
            from: start + warmUp,
            until: deadline,
            publisherEnds: start + duration
        )
        if case .failure(let e) = await publisher.value {
            throw .gatewayFailed("publishing to \(publishURL) failed: \(e)")
        }
        result.apply(reports)
        return result
    }

    /// The name of the default ladder's highest rung below `height` (LadderPlan never upscales).
    static func topRung(below height: Int) -> String? {
        LadderConfiguration().rungs.filter { $0.height < height }.max { $0.height < $1.height }?.name
    }

    /// Writes a real player's trace as JSON.
    private static func write(_ trace: PlayerTrace, to path: String) throws(BenchError) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let url = URL(fileURLWithPath: path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try encoder.encode(trace).write(to: url)
        } catch {
            throw .writeFailed(path: path, reason: "\(error)")
        }
    }

    /// Publishes the test pattern with its capture clock in SEI: RTMP through librtmp, or WHIP through our own
    /// publisher (same source, audio as Opus) when the URL is an `http://…/whip/KEY` endpoint.
    static func publish(
        _ source: PublishInput,
        to url: String,
        duration: Duration,
        logger: Logger
    ) async -> Result<Void, BenchPublishFailure> {
        if url.hasPrefix("srt://") {
            do throws(SRTPublishError) {
                _ = try await publishSRT(input: source, to: url, duration: duration)
                return .success(())
            } catch {
                return .failure(BenchPublishFailure(reason: "\(error)"))
            }
        }
        if url.hasPrefix("http://") {
            do throws(WHIPPublishError) {
                var quiet = logger
                quiet.logLevel = .error
                let publisher = try WHIPPublisher(url: url, options: .init(duration: duration), logger: quiet)
                _ = try await publisher.publish(input: source)
                return .success(())
            } catch {
                return .failure(BenchPublishFailure(reason: "\(error)"))
            }
        }
        do throws(RTMPPublishError) {
            // A file source (the E-RTMP scenarios') is shorter than the run: it loops.
            let loop = if case .file = source { true } else { false }
            _ = try await RTMPPublish.publish(input: source, to: url, loop: loop, duration: duration)
            return .success(())
        } catch {
            return .failure(BenchPublishFailure(reason: "\(error)"))
        }
    }

    /// When a GET of the media playlist first lists media a player can start on (a part, or a segment for classic).
    private func firstPlayable(
        _ url: String,
        lowLatency: Bool,
        until deadline: ContinuousClock.Instant
    ) async
        -> ContinuousClock.Instant?
    {
        guard let target = try? HTTPLocation(parsing: url) else { return nil }
        let fetcher = HTTPConnection(origin: target, userAgent: "sluice-bench")
        let marker = lowLatency ? "#EXT-X-PART:" : "#EXTINF:"
        while ContinuousClock.now < deadline {
            if let r = try? await fetcher.get(target.target, timeout: .seconds(12)), r.status == 200,
                String(decoding: r.body, as: UTF8.self).contains(marker)
            {
                await fetcher.close()
                return r.completed
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        await fetcher.close()
        return nil
    }

    /// The gateway's per-hop percentiles for the watched rendition, from `GET /api/streams`.
    private func gatewayHops(
        httpBase: String,
        key: String,
        rendition: String
    ) async throws(BenchError)
        -> [String: LatencyPercentiles]
    {
        let url = try HTTPLocation(parsing: httpBase + "/api/streams")
        let r: HTTPClientResponse
        do { r = try await HTTPClient(userAgent: "sluice-bench").request("GET", url) } catch { throw .http(error) }
        guard r.status == 200 else { throw .httpStatus(url: url.description, status: r.status) }
        return GatewayHops.parse(json: r.body, stream: key, rendition: rendition)
    }
}

/// Why the bench publisher (RTMP or WHIP) stopped early.
struct BenchPublishFailure: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
