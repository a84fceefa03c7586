import Foundation
import HTTPClient
import Logging
import MediaCore
import NIOCore
import NIOPosix
import Synchronization

/// What `sluice bench --viewers N` runs: how many LL-HLS viewers, against what, for how long.
public struct LoadGeneratorConfiguration: Sendable {
    /// Viewers, each one keep-alive connection following the live edge part by part.
    public var viewers = 100
    /// A media playlist (`…/video.m3u8`) or multivariant (`…/index.m3u8`, its `video.m3u8` is followed);
    /// nil starts an embedded gateway with the test pattern in this process.
    public var gateway: HTTPLocation?
    /// Length of the measured window (after ramp-up and warm-up).
    public var duration: Duration = .seconds(20)
    /// Samples are kept only this long after the last viewer started.
    public var warmup: Duration = .seconds(3)
    /// Viewers started per second (a connect storm measures the kernel, not delivery).
    public var rampPerSecond = 2_000
    /// The origin's process, for CPU and RSS when `gateway` is remote (the embedded one is this process).
    public var originPID: Int32?
    /// Only `/live/KEY/…` paths: a static anchor (nginx serving copied files) sets this to false and is paced.
    public var live = true
    /// With a remote `video.m3u8` that has an `audio.m3u8` beside it: each viewer follows both, as players do.
    public var audio = true
    /// Part target of the embedded gateway.
    public var partTarget: Duration = .milliseconds(200)

    /// Defaults: 100 viewers, embedded gateway, 20 s.
    public init() {}
}

/// The outcome: delivery delay percentiles, origin CPU and memory, request counts.
public struct LoadGeneratorReport: Sendable, Codable {
    /// Viewers asked for and viewers that received at least one part in the window.
    public var viewers: Int
    public var activeViewers: Int
    /// Parts received in the window, and requests answered (all statuses) in the whole run.
    public var parts: Int
    public var requests: Int
    /// Non-200 answers and transport errors.
    public var errors: Int
    /// Part published → last byte at the viewer, over the parts received.
    public var delay: LatencyPercentiles?
    /// The same with every miss ranked last (infinite): a percentile that lands on a miss is infinite.
    public var delayCountingMisses: LatencyPercentiles?
    /// Failed or timed-out fetches inside the window.
    public var misses: Int
    public var delayMaxMs: Double?
    /// What "published" means in this run.
    public var publication: String
    /// Whether each viewer also followed the audio playlist (its parts are in the percentiles too).
    public var audioFollowed: Bool
    /// Origin process CPU, percent of one core, over the window; and before any viewer (the idle stream).
    public var originCPUPercent: Double?
    public var originIdleCPUPercent: Double?
    /// Origin RSS before the first viewer and at the end of the window, KiB.
    public var originRSSBeforeKiB: Int?
    public var originRSSAfterKiB: Int?
    /// The load generator's own CPU when the origin is another process.
    public var generatorCPUPercent: Double?
    /// Window length, seconds.
    public var seconds: Double

    /// (RSS after − before) / viewers, KiB.
    public var rssPerViewerKiB: Double? {
        guard let a = originRSSAfterKiB, let b = originRSSBeforeKiB, viewers > 0 else { return nil }
        return Double(a - b) / Double(viewers)
    }
}

/// Opens N LL-HLS viewers over loopback on one event loop group and measures delivery of each part to each viewer.
public enum LoadGenerator {
    /// Runs the load; with no gateway, an embedded one (hub, packager, origin, test pattern) in this process.
    public static func run(_ c: LoadGeneratorConfiguration, logger: Logger) async throws -> LoadGeneratorReport {
        ProcessUsage.raiseOpenFileLimit()
        let embedded: EmbeddedGateway?
        let playlist: HTTPLocation
        if let g = c.gateway {
            embedded = nil
            playlist = g.path.hasSuffix("/index.m3u8") ? try g.resolved("video.m3u8") : g
        } else {
            let gw = try await EmbeddedGateway.start(partTarget: c.partTarget, logger: logger)
            embedded = gw
            playlist = gw.playlist
        }
        let originPID = c.originPID.map { "\($0)" } ?? (embedded != nil ? "self" : nil)
        let clock = PublicationClock(embedded: embedded)
        let stats = LoadStatistics()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

        // The stream must be live (HOLD-BACK worth of segments) before viewers join.
        let probe = HTTPConnection(origin: playlist, userAgent: "sluice-bench", group: group)
        let ready = ContinuousClock.now + .seconds(30)
        while try await probe.get(playlist.target, timeout: .seconds(15)).status != 200 {
            guard ContinuousClock.now < ready else { throw BenchError.httpStatus(url: "\(playlist)", status: 503) }
            try await Task.sleep(for: .milliseconds(250))
        }
        // A real player follows the audio playlist beside the video one, on a connection of its own.
        let audio = try playlist.resolved("audio.m3u8")
        var followAudio = c.audio && c.live && embedded == nil && playlist.path.hasSuffix("/video.m3u8")
        if followAudio { followAudio = (try? await probe.get(audio.target, timeout: .seconds(15)).status) == 200 }
        await probe.close()

        let idleStart = originPID.flatMap(ProcessUsage.read)
        try await Task.sleep(for: .seconds(2))
        let idleEnd = originPID.flatMap(ProcessUsage.read)
        let ramp = Duration.seconds(Double(c.viewers) / Double(max(1, c.rampPerSecond)))
        let windowStart = ContinuousClock.now + ramp + c.warmup
        let deadline = windowStart + c.duration
        stats.open(at: windowStart)
        var before: (origin: ProcessUsage?, me: ProcessUsage?) = (nil, nil)
        var after: (origin: ProcessUsage?, me: ProcessUsage?) = (nil, nil)
        await withTaskGroup(of: Void.self) { tasks in
            for i in 0..<c.viewers {
                let viewer = LoadViewer(
                    playlist: playlist,
                    fetcher: HTTPConnection(origin: playlist, userAgent: "sluice-bench", group: group),
                    clock: clock,
                    stats: stats,
                    live: c.live,
                    pace: c.partTarget
                )
                tasks.addTask { await viewer.run(until: deadline) }
                if followAudio {
                    let ears = LoadViewer(
                        playlist: audio,
                        fetcher: HTTPConnection(origin: audio, userAgent: "sluice-bench", group: group),
                        clock: clock,
                        stats: stats,
                        live: true,
                        pace: c.partTarget,
                        id: viewer.id
                    )
                    tasks.addTask { await ears.run(until: deadline) }
                }
                if c.rampPerSecond > 0 && i % 50 == 49 {
                    try? await Task.sleep(for: .seconds(50.0 / Double(c.rampPerSecond)))
                }
            }
            try? await Task.sleep(until: windowStart, clock: .continuous)
            before = (originPID.flatMap(ProcessUsage.read), ProcessUsage.read(pid: "self"))
            try? await Task.sleep(until: deadline, clock: .continuous)
            after = (originPID.flatMap(ProcessUsage.read), ProcessUsage.read(pid: "self"))
            await tasks.waitForAll()
        }
        embedded?.stop()
        try? await group.shutdownGracefully()
        let s = stats.snapshot()
        var report = LoadGeneratorReport(
            viewers: c.viewers,
            activeViewers: s.activeViewers,
            parts: s.delays.count,
            requests: s.requests,
            errors: s.errors,
            delay: LatencyPercentiles(samples: s.delays),
            delayCountingMisses: LatencyPercentiles(samples: s.delays, misses: s.misses),
            misses: s.misses,
            delayMaxMs: s.delays.max().map { $0.secondsDouble * 1000 },
            publication: clock.definition(live: c.live),
            audioFollowed: followAudio,
            seconds: c.duration.secondsDouble
        )
        if let a = before.origin, let b = after.origin {
            report.originCPUPercent = ProcessUsage.cpuPercent(from: a, to: b)
        }
        if let a = idleStart, let b = idleEnd { report.originIdleCPUPercent = ProcessUsage.cpuPercent(from: a, to: b) }
        report.originRSSBeforeKiB = idleEnd?.rssKiB
        report.originRSSAfterKiB = after.origin?.rssKiB
        if originPID != "self", let a = before.me, let b = after.me {
            report.generatorCPUPercent = ProcessUsage.cpuPercent(from: a, to: b)
        }
        return report
    }
}

/// Delivery samples and counters shared by every viewer.
final class LoadStatistics: Sendable {
    struct Snapshot {
        var delays: [Duration] = []
        /// Failed or timed-out fetches inside the window: each a part some viewer did not get in time.
        var misses = 0
        var requests = 0
        var errors = 0
        var viewersSeen: Set<Int> = []
        var activeViewers: Int { viewersSeen.count }
    }

    private let state = Mutex<(window: ContinuousClock.Instant?, s: Snapshot)>((nil, Snapshot()))

    func open(at start: ContinuousClock.Instant) { state.withLock { $0.window = start } }

    /// One part received by `viewer` at `receipt`, published at `published`.
    func part(viewer: Int, receipt: ContinuousClock.Instant, published: ContinuousClock.Instant?) {
        state.withLock { st in
            guard let w = st.window, receipt >= w, let published else { return }
            st.s.delays.append(receipt - published)
            st.s.viewersSeen.insert(viewer)
        }
    }

    /// A viewer's fetch failed at `instant` (counted when inside the window).
    func miss(at instant: ContinuousClock.Instant) {
        state.withLock { st in
            guard let w = st.window, instant >= w else { return }
            st.s.misses += 1
        }
    }

    func request(ok: Bool) {
        state.withLock { st in
            st.s.requests += 1
            if !ok { st.s.errors += 1 }
        }
    }

    func snapshot() -> Snapshot { state.withLock { $0.s } }
}
