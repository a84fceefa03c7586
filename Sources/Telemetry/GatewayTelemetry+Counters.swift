import MediaCore
import Prometheus
import Synchronization

/// The per-rendition counters of `/metrics`.
enum CounterName: String, CaseIterable, Sendable {
    case bytesIn = "sluice_bytes_in"
    case bytesOut = "sluice_bytes_out"
    case framesIn = "sluice_frames_in"
    case framesOut = "sluice_frames_out"
    case partsPublished = "sluice_parts_published"

    var descriptor: MetricNameDescriptor {
        let help =
            switch self {
            case .bytesIn: "Media bytes received by ingest"
            case .bytesOut: "Response body bytes the origin wrote (playlists and media)"
            case .framesIn: "Frames received by ingest"
            case .framesOut: "Frames inside published parts"
            case .partsPublished: "LL-HLS parts published"
            }
        return MetricNameDescriptor(metricName: rawValue, unitName: "total", helpText: help)
    }
}

extension GatewayTelemetry {
    /// Ingest received `frames` frames of `bytes` bytes.
    public func countIngested(stream: StreamKey, rendition: String, frames: Int = 1, bytes: Int) {
        count(stream, rendition, [(.framesIn, frames), (.bytesIn, bytes)]) {
            $0.framesIn += frames
            $0.bytesIn += bytes
        }
    }

    /// A frame entered the hub from an ingest: its ingest hop (first byte → parsed) and the frames/bytes in.
    public func recordIngest(_ frame: MediaFrame, stream: StreamKey) {
        let rendition = frame.kind.rawValue
        record(.ingest, from: frame.stamps.firstByte, to: frame.stamps.ingested, stream: stream, rendition: rendition)
        countIngested(stream: stream, rendition: rendition, bytes: frame.data.count)
    }

    /// The packager published one part holding `frames` frames and `bytes` bytes of media.
    public func countPublished(
        stream: StreamKey,
        rendition: String,
        frames: Int,
        bytes: Int,
        at now: ContinuousClock.Instant = .now
    ) {
        count(stream, rendition, [(.framesOut, frames), (.partsPublished, 1)]) {
            $0.framesOut += frames
            $0.partsPublished += 1
        } rate: {
            $0.add(frames: frames, bytes: bytes, at: now)
        }
    }

    /// The origin wrote a response body of `bytes` bytes for a rendition (or `index` for the multivariant).
    public func countSent(stream: StreamKey, rendition: String, bytes: Int) {
        count(stream, rendition, [(.bytesOut, bytes)]) { $0.bytesOut += bytes }
    }

    /// `reader` (the hub reader's or stage's name: `hls`, `transcoder`, `encoder`) dropped frames of a rendition.
    public func countDropped(stream: StreamKey, rendition: String, reader: String, frames: Int = 1) {
        guard frames > 0 else { return }
        let registry = registry
        let counter = withRendition(stream, rendition) { r, labels in
            r.tally.framesDropped[reader, default: 0] += frames
            if let c = r.dropCounters[reader] { return c }
            let c = registry.makeCounter(
                descriptor: MetricNameDescriptor(
                    metricName: "sluice_frames_dropped",
                    unitName: "total",
                    helpText: "Frames dropped because a reader or stage fell behind"
                ),
                labels: labels() + [("reader", reader)]
            )
            r.dropCounters[reader] = c
            return c
        }
        counter.increment(by: Int64(frames))
    }

    /// One HTTP request of `kind` for `stream` (nil: not about any stream, counted under `stream=""`).
    public func countRequest(stream: StreamKey?, kind: HTTPRequestKind) {
        let registry = registry
        let name = stream?.sourceKey.rawValue ?? ""
        let bump: (inout StreamState) -> Prometheus.Counter = { s in
            s.http[kind, default: 0] += 1
            if let c = s.httpCounters[kind] { return c }
            let c = registry.makeCounter(
                descriptor: MetricNameDescriptor(
                    metricName: "sluice_http_requests",
                    unitName: "total",
                    helpText: "HTTP requests by stream and kind"
                ),
                labels: [("stream", name), ("kind", kind.rawValue)]
            )
            s.httpCounters[kind] = c
            return c
        }
        let counter =
            if let stream { withStream(stream, bump) } else {
                state.withLock { s in bump(&s.unscoped) }
            }
        counter.increment()
    }

    /// A blocking playlist request started waiting (`video`: for a video rendition, which every player follows once).
    public func blockingRequestStarted(stream: StreamKey, video: Bool, now: ContinuousClock.Instant = .now) {
        withStream(stream) { s in
            s.waiting += 1
            if video {
                s.waitingVideo += 1
                s.peakWaitingVideo.note(s.waitingVideo, at: now)
            }
        }
    }

    /// A blocking playlist request finished waiting.
    public func blockingRequestEnded(stream: StreamKey, video: Bool) {
        withStream(stream) { s in
            s.waiting = max(0, s.waiting - 1)
            if video { s.waitingVideo = max(0, s.waitingVideo - 1) }
        }
    }

    /// A client fetched a playlist of `stream`; `client` identifies its connection (peer address), when known.
    public func notePlaylistFetch(stream: StreamKey, client: String?, now: ContinuousClock.Instant = .now) {
        guard let client else { return }
        let window = viewerWindow
        withStream(stream) { s in
            s.clients[client] = now
            // Pruning walks every client: only once the map doubled since the last walk, so a fetch costs O(1)
            // amortized even when more than 4,096 clients are recent (each walk used to run on every fetch then).
            if s.clients.count > s.clientsPruneAt {
                s.clients = s.clients.filter { now - $0.value < window }
                s.clientsPruneAt = max(4_096, 2 * s.clients.count)
                s.clientPrunings += 1
            }
        }
    }

    /// Times `stream`'s client map was walked to drop stale clients.
    func clientPrunings(stream: StreamKey) -> Int { withStream(stream) { $0.clientPrunings } }

    /// Viewers of a stream: the distinct client connections that fetched one of its playlists within `viewerWindow`,
    /// or, when larger (the peer is unknown, or connections are shared), the peak number of blocking requests for
    /// its video renditions waiting at once within the window: an LL-HLS player keeps exactly one waiting.
    public func viewers(stream: StreamKey, now: ContinuousClock.Instant = .now) -> Int {
        withStream(stream) { s in viewers(s, now: now) }
    }

    func viewers(_ s: StreamState, now: ContinuousClock.Instant) -> Int {
        let recent = s.clients.values.filter { now - $0 < viewerWindow }.count
        return max(recent, s.peakWaitingVideo.peak(within: viewerWindow, now: now), s.waitingVideo)
    }

    /// Sets the gauges that are sampled, not counted (viewers, blocking requests waiting) before a scrape.
    func refreshGauges(now: ContinuousClock.Instant) {
        let registry = registry
        let gauges = state.withLock { t -> [(Prometheus.Gauge, Int)] in
            var out: [(Prometheus.Gauge, Int)] = []
            for key in t.streams.keys {
                var s = t.streams[key]!
                let labels = [("stream", key.rawValue)]
                let waiting =
                    s.waitingGauge
                    ?? registry.makeGauge(
                        descriptor: MetricNameDescriptor(
                            metricName: "sluice_blocking_requests_waiting",
                            unitName: "",
                            helpText: "Blocking playlist requests (_HLS_msn) waiting now"
                        ),
                        labels: labels
                    )
                let viewers =
                    s.viewersGauge
                    ?? registry.makeGauge(
                        descriptor: MetricNameDescriptor(
                            metricName: "sluice_viewers",
                            unitName: "",
                            helpText:
                                "Distinct client connections with a playlist request in the last 10 s, or the peak of waiting video blocking requests if larger"
                        ),
                        labels: labels
                    )
                s.waitingGauge = waiting
                s.viewersGauge = viewers
                out.append((waiting, s.waiting))
                out.append((viewers, self.viewers(s, now: now)))
                t.streams[key] = s
            }
            return out
        }
        for (g, v) in gauges { g.set(to: Double(v)) }
    }

    private func count(
        _ stream: StreamKey,
        _ rendition: String,
        _ amounts: [(CounterName, Int)],
        _ tally: (inout RenditionTelemetry) -> Void,
        rate: (inout RateMeter) -> Void = { _ in }
    ) {
        let registry = registry
        let counters = withRendition(stream, rendition) { r, labels -> [(Prometheus.Counter, Int)] in
            tally(&r.tally)
            rate(&r.rate)
            return amounts.map { name, amount in
                if let c = r.counters[name] { return (c, amount) }
                let c = registry.makeCounter(descriptor: name.descriptor, labels: labels())
                r.counters[name] = c
                return (c, amount)
            }
        }
        for (c, amount) in counters where amount > 0 { c.increment(by: Int64(amount)) }
    }
}

extension GatewayTelemetry {
    /// True the first time a response carrying `part` of segment `msn` is claimed (deliver is measured once per part).
    /// A whole segment claims `part: nil`. Claims older than 64 segments are forgotten.
    public func claimFirstDelivery(stream: StreamKey, rendition: String, msn: Int, part: Int?) -> Bool {
        let id = Int64(msn) << 20 | Int64(part.map { $0 & 0xF_FFFF } ?? 0xF_FFFF)
        return withRendition(stream, rendition) { r, _ in
            guard r.delivered.insert(id).inserted else { return false }
            if r.delivered.count > 4_096 {
                let floor = Int64(msn - 64) << 20
                r.delivered = r.delivered.filter { $0 >= floor }
            }
            return true
        }
    }
}
