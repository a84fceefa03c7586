import Foundation
import LLHLSPackager
import Logging
import MediaCore
import MediaSources
import RTMPPublish
import SluiceApp
import Synchronization
import WHIPPublish

/// What a `sluice bench` latency run does.
public struct BenchOptions: Sendable {
    /// Scenarios in run order; unavailable ones are reported as skipped.
    public var scenarios: [BenchScenario]
    /// Publishing time per scenario.
    public var duration: Duration = .seconds(30)
    /// An external gateway's HTTP base (`http://host:8080`) instead of the embedded one.
    public var gateway: String?
    /// The external gateway's RTMP application URL (`rtmp://host:1935/live`); defaults to the gateway host, port 1935.
    public var rtmp: String?
    /// The command line, recorded in the report.
    public var command: String

    /// Options for `scenarios`.
    public init(scenarios: [BenchScenario], command: String) {
        self.scenarios = scenarios
        self.command = command
    }
}

/// Runs the latency scenarios one after the other: a gateway (embedded, external, or nginx-rtmp), the test
/// pattern published in real time with its capture clock in SEI, a viewer from the moment the stream is playable.
public struct BenchRunner: Sendable {
    /// The 1280x720@30 test pattern, 1 s GOP, no B-frames, with a 440 Hz AAC tone.
    static let source = PublishInput.testPattern(width: 1280, height: 720, fps: 30, gopFrames: 30, bFrames: 0)
    /// Publishing time before the viewer joins (at most half the run): three 2 s segments and some.
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

    /// Runs every scenario; failures become results with `skipped` set, so one broken path never hides the rest.
    public func run() async -> BenchReport {
        let date = WallTime.now().iso8601
        var results: [ScenarioResult] = []
        for (i, scenario) in options.scenarios.enumerated() {
            var result = ScenarioResult(scenario: scenario)
            let tag = "[\(i + 1)/\(options.scenarios.count)] \(scenario.id)"
            if let why = scenario.unavailableReason {
                result.skipped = why
                progress.finish("\(tag): skipped, \(why)")
            } else {
                do {
                    result = try await run(scenario, tag: tag)
                    progress.finish("\(tag): done" + (result.player.map { ", player glass p50 \(BenchTable.ms($0.p50Ms)) ms" } ?? ""))
                } catch {
                    result.skipped = "failed: \(error)"
                    progress.finish("\(tag): failed, \(error)")
                }
            }
            results.append(result)
        }
        return BenchReport(
            date: date, machine: BenchReport.describeMachine(), durationSeconds: options.duration.milliseconds / 1000,
            command: options.command, scenarios: results)
    }

    /// One scenario from gateway start to gateway stop.
    func run(_ scenario: BenchScenario, tag: String) async throws(BenchError) -> ScenarioResult {
        let key = "bench-\(scenario.id)-\(UInt32.random(in: 0...UInt32.max))"
        switch scenario.path {
        case .nginxRTMP:
            let anchor = try NginxRTMPAnchor()
            defer { anchor.stop() }
            try await anchor.waitUntilReady()
            var result = try await measure(
                scenario, tag: tag, publishURL: anchor.rtmpURL(key: key), playlistURL: anchor.playlistURL(key: key))
            result.rendition = "\(key).m3u8"
            return result
        case .sluice(_, _, let rendition), .whip(_, let rendition):
            var lowLatency = true
            var transcode = false
            var overWHIP = false
            switch scenario.path {
            case .sluice(let ll, let t, _): (lowLatency, transcode) = (ll, t)
            case .whip(let t, _): (transcode, overWHIP) = (t, true)
            case .nginxRTMP: break
            }
            var embedded: ScenarioGateway?
            let httpBase: String
            let rtmpBase: String
            if let external = options.gateway {
                httpBase = external.hasSuffix("/") ? String(external.dropLast()) : external
                let host = try HTTPURL(httpBase + "/").host
                rtmpBase = options.rtmp ?? "rtmp://\(host):1935/live"
            } else {
                var c = SluiceConfiguration()
                c.hls.lowLatency = lowLatency
                c.transcode = transcode
                // The gateway's own shutdown chatter (cancelled channels) says nothing about latency.
                var quiet = logger
                quiet.logLevel = .critical
                let gateway = try await ScenarioGateway.start(c, logger: quiet)
                embedded = gateway
                httpBase = gateway.httpBase
                rtmpBase = gateway.rtmpBase
            }
            do {
                var result = try await measure(
                    scenario, tag: tag, publishURL: overWHIP ? "\(httpBase)/whip/\(key)" : "\(rtmpBase)/\(key)",
                    playlistURL: "\(httpBase)/live/\(key)/\(rendition).m3u8")
                result.rendition = rendition
                result.hops = try await gatewayHops(httpBase: httpBase, key: key, rendition: rendition)
                await embedded?.stop()
                return result
            } catch {
                await embedded?.stop()
                throw error
            }
        }
    }

    /// Publishes for the run's duration, measures when the playlist first lists media, and watches from then on.
    private func measure(
        _ scenario: BenchScenario, tag: String, publishURL: String, playlistURL: String
    ) async throws(BenchError) -> ScenarioResult {
        let clock = ContinuousClock()
        let start = clock.now
        let duration = options.duration
        let publisher = Task { () -> Result<Void, BenchPublishFailure> in
            await Self.publish(to: publishURL, duration: duration, logger: logger)
        }
        let phase = Mutex("waiting for the first playable playlist")
        let ticker = Task {
            while !Task.isCancelled {
                let elapsed = Int((clock.now - start).milliseconds / 1000)
                progress.update("\(tag): \(elapsed)/\(Int(duration.milliseconds / 1000)) s, \(phase.withLock { $0 })")
                try? await Task.sleep(for: progress.interval)
            }
        }
        defer { ticker.cancel() }
        var result = ScenarioResult(scenario: scenario)
        let playable = await firstPlayable(playlistURL, lowLatency: scenario.lowLatencyViewer, until: start + duration + .seconds(10))
        guard let playable else {
            publisher.cancel()
            if case .failure(let e) = await publisher.value { throw .gatewayFailed("publishing to \(publishURL) failed: \(e)") }
            throw .badPlaylist(url: playlistURL, reason: "no media listed within the run")
        }
        result.ttffPublishMs = (playable - start).milliseconds
        // Viewers join a running stream: one that joined the very first segment of a short playlist (nginx lists
        // it at once, Sluice holds it for HOLD-BACK) would sit closer to the edge than any later viewer.
        let warmUp = min(Self.warmUp, duration / 2)
        if clock.now < start + warmUp {
            phase.withLock { $0 = "warming up" }
            try? await clock.sleep(until: start + warmUp)
        }
        phase.withLock { $0 = "viewer watching \(scenario.lowLatencyViewer ? "(LL-HLS)" : "(classic)")" }
        let deadline = start + duration + Self.tail
        let report =
            scenario.lowLatencyViewer
            ? try await LLHLSViewer(playlistURL: playlistURL, logger: logger)
                .run(until: deadline, publisherEnds: start + duration)
            : try await ClassicHLSViewer(playlistURL: playlistURL, logger: logger).run(until: deadline)
        if case .failure(let e) = await publisher.value { throw .gatewayFailed("publishing to \(publishURL) failed: \(e)") }
        result.apply(report)
        return result
    }

    /// Publishes the test pattern with its capture clock in SEI: RTMP through librtmp, or WHIP through our own
    /// publisher (same source, audio as Opus) when the URL is an `http://…/whip/KEY` endpoint.
    static func publish(to url: String, duration: Duration, logger: Logger) async -> Result<Void, BenchPublishFailure> {
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
            _ = try await RTMPPublish.publish(input: source, to: url, duration: duration)
            return .success(())
        } catch {
            return .failure(BenchPublishFailure(reason: "\(error)"))
        }
    }

    /// When a GET of the media playlist first lists media a player can start on (a part, or a segment for classic).
    private func firstPlayable(_ url: String, lowLatency: Bool, until deadline: ContinuousClock.Instant) async
        -> ContinuousClock.Instant?
    {
        guard let target = try? HTTPURL(url) else { return nil }
        let fetcher = HTTPFetcher(origin: target)
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
    private func gatewayHops(httpBase: String, key: String, rendition: String) async throws(BenchError)
        -> [String: LatencyPercentiles]
    {
        let url = try HTTPURL(httpBase + "/api/streams")
        let fetcher = HTTPFetcher(origin: url)
        let r = try await fetcher.get(url.target)
        await fetcher.close()
        guard r.status == 200 else { throw .httpStatus(url: url.description, status: r.status) }
        return GatewayHops.parse(json: r.body, stream: key, rendition: rendition)
    }
}

extension ScenarioResult {
    /// Fills the viewer figures. "available" counts frames captured after the viewer joined: the backlog it
    /// fetched on joining was downloadable long before it asked.
    mutating func apply(_ report: ViewerReport) {
        let live = report.frames.filter { $0.capture >= report.joinedAt }
        available = LatencyPercentiles(samples: live.map { $0.available.duration(since: $0.capture) })
        player = LatencyPercentiles(samples: report.playerLatencies)
        ttffJoinMs = report.firstFrameAt.map { $0.duration(since: report.joinedAt).milliseconds }
        frames = report.frames.count
        stalls = report.stalls
        requests = report.requests
        errors = Array(report.errors.prefix(10))
    }
}

/// Why the bench publisher (RTMP or WHIP) stopped early.
struct BenchPublishFailure: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
