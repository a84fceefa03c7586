import CoreMetrics
import MediaCore
import Prometheus
import Synchronization

/// One gateway's measurements: per-hop latency histograms (HDR for exact percentiles, Prometheus for scraping),
/// byte/frame/part counters, and the audience of each stream. One instance per gateway, injected everywhere.
///
/// Labels: `stream` is the publisher's key (a rung's derived key `demo~480p` counts under `demo`); `rendition` is
/// the packager's rendition name: `video` and `audio` for the source, the rung name (`480p`) for the ladder.
public final class GatewayTelemetry: Sendable {
    /// The Prometheus registry this gateway's metrics live in (no process-wide registry is used).
    public let registry: PrometheusCollectorRegistry
    /// How long a client counts as a viewer after its last playlist request.
    public let viewerWindow: Duration
    let state: Mutex<TelemetryState>
    let origin: ContinuousClock.Instant

    /// Bucket bounds of `sluice_hop_latency_seconds`: 1 ms … 10 s (400 ms: the passthrough's package budget under load).
    public static let hopBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(400), .milliseconds(500), .seconds(1),
        .milliseconds(2_500), .seconds(5), .seconds(10),
    ]

    /// Creates an empty telemetry with its own registry.
    public init(viewerWindow: Duration = .seconds(10)) {
        registry = PrometheusCollectorRegistry()
        self.viewerWindow = viewerWindow
        let origin = ContinuousClock.now
        self.origin = origin
        state = Mutex(TelemetryState(origin: origin))
    }

    /// A swift-metrics factory writing into this gateway's registry, for libraries that speak swift-metrics.
    public var metricsFactory: any MetricsFactory { PrometheusMetricsFactory(registry: registry) }

    /// Records one latency sample of `hop`. Hot path: one lock, two dictionary lookups, two histogram increments.
    public func record(_ hop: Hop, _ latency: Duration, stream: StreamKey, rendition: String) {
        let registry = registry
        let prometheus = withRendition(stream, rendition) { r, labels in
            r.hopHistograms[hop, default: HopHistogram()].record(latency)
            if let h = r.hopMetrics[hop] { return h }
            let h = registry.makeDurationHistogram(
                descriptor: Self.hopLatency,
                labels: [("hop", hop.rawValue)] + labels(),
                buckets: Self.hopBuckets
            )
            r.hopMetrics[hop] = h
            return h
        }
        prometheus.record(max(.zero, latency))
    }

    /// Records the span from `start` to `end` when both are known.
    public func record(
        _ hop: Hop,
        from start: ContinuousClock.Instant?,
        to end: ContinuousClock.Instant?,
        stream: StreamKey,
        rendition: String
    ) {
        guard let start, let end else { return }
        record(hop, end - start, stream: stream, rendition: rendition)
    }

    /// The Prometheus text exposition (format 0.0.4) of every metric.
    public func prometheusText() -> String {
        refreshGauges(now: .now)
        return registry.emitToString()
    }

    /// Content-Type of `prometheusText()`.
    public static let prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

    static var hopLatency: MetricNameDescriptor {
        MetricNameDescriptor(
            metricName: "sluice_hop_latency",
            unitName: "seconds",
            helpText:
                "Latency of one hop of a frame's trip (ingest, decode, encode, package, deliver, available, glass)"
        )
    }

    /// Runs `body` on a rendition's state (created on first use) with its Prometheus labels.
    func withRendition<T>(
        _ stream: StreamKey,
        _ rendition: String,
        _ body: (inout RenditionState, @autoclosure () -> [(String, String)]) -> T
    ) -> T {
        let key = stream.sourceKey
        let origin = origin
        // Labels are built only when a Prometheus series is created, never on the hot path.
        return state.withLock { s in
            body(
                &s.streams[key, default: StreamState(origin: origin)].renditions[
                    rendition,
                    default: RenditionState(origin: origin)
                ],
                [("stream", key.rawValue), ("rendition", rendition)]
            )
        }
    }

    /// Runs `body` on a stream's state (created on first use).
    func withStream<T>(_ stream: StreamKey, _ body: (inout StreamState) -> T) -> T {
        let key = stream.sourceKey
        let origin = origin
        return state.withLock { s in body(&s.streams[key, default: StreamState(origin: origin)]) }
    }
}

/// Everything behind the telemetry lock.
struct TelemetryState: Sendable {
    var streams: [StreamKey: StreamState] = [:]
    /// Requests about no stream (`/healthz`, `/metrics`, pages).
    var unscoped: StreamState

    init(origin: ContinuousClock.Instant) { unscoped = StreamState(origin: origin) }
}

/// One stream's counters, audience and renditions.
struct StreamState: Sendable {
    var renditions: [String: RenditionState] = [:]
    /// Last playlist request per client identity (peer address), for `viewers`.
    var clients: [String: ContinuousClock.Instant] = [:]
    /// `clients` is pruned of stale entries when it grows past this: twice what the last pruning kept, at least 4,096.
    var clientsPruneAt = 4_096
    /// Prunings of `clients` so far.
    var clientPrunings = 0
    /// Blocking playlist requests waiting now, all renditions and video renditions only.
    var waiting = 0
    var waitingVideo = 0
    var peakWaitingVideo: PeakWindow
    var http: [HTTPRequestKind: Int] = [:]
    var httpCounters: [HTTPRequestKind: Prometheus.Counter] = [:]
    var waitingGauge: Prometheus.Gauge?
    var viewersGauge: Prometheus.Gauge?
    /// WHIP sessions and RTP receive counters (GatewayTelemetry+WebRTC.swift).
    var webrtc = WebRTCState()
    /// SRT sessions and libsrt link statistics (GatewayTelemetry+SRT.swift).
    var srt = SRTState()
    /// The ladder's shed rungs (GatewayTelemetry+LoadShedding.swift).
    var loadShedding = LoadSheddingState()
    /// Tracks the publisher sends that are not served (GatewayTelemetry+UnservedTracks.swift).
    var unservedTracks: Set<UnservedTrack> = []

    init(origin: ContinuousClock.Instant) { peakWaitingVideo = PeakWindow(origin: origin) }
}

/// One rendition's histograms, tallies and their Prometheus twins.
struct RenditionState: Sendable {
    var hopHistograms: [Hop: HopHistogram] = [:]
    var hopMetrics: [Hop: DurationHistogram] = [:]
    var tally: RenditionTelemetry
    var rate: RateMeter
    var counters: [CounterName: Prometheus.Counter] = [:]
    var dropCounters: [String: Prometheus.Counter] = [:]
    /// Parts (msn << 20 | part) whose first response was already measured.
    var delivered: Set<Int64> = []

    init(origin: ContinuousClock.Instant) {
        tally = RenditionTelemetry(name: "")
        rate = RateMeter(origin: origin)
    }
}
