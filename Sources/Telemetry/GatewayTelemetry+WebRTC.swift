import MediaCore
import Prometheus
import Synchronization

/// One stream's WebRTC ingest state behind the telemetry lock, with its Prometheus twins.
struct WebRTCState: Sendable {
    var snapshot = WebRTCStreamTelemetry()
    var counters: [String: [WebRTCReceiveCounts.Field: Prometheus.Counter]] = [:]
    var sessionsGauge: Prometheus.Gauge?
}

extension GatewayTelemetry {
    /// A WHIP session started publishing `stream` (`sluice_webrtc_sessions` goes up).
    public func webrtcSessionStarted(stream: StreamKey) { adjustWebRTCSessions(stream, by: 1) }

    /// A WHIP session of `stream` ended.
    public func webrtcSessionEnded(stream: StreamKey) { adjustWebRTCSessions(stream, by: -1) }

    /// Adds one session's receive counters since its last report for `kind` (`video` or `audio`); every series of
    /// the kind exists after the first call, zeros included, so a dashboard sees "no loss" rather than "no data".
    public func countWebRTC(stream: StreamKey, kind: String, _ delta: WebRTCReceiveCounts) {
        let registry = registry
        let name = stream.sourceKey.rawValue
        let counters = withStream(stream) { s -> [(Prometheus.Counter, Int)] in
            s.webrtc.snapshot.kinds[kind] = s.webrtc.snapshot.kinds[kind, default: WebRTCReceiveCounts()].adding(delta)
            var series = s.webrtc.counters[kind] ?? [:]
            let out = WebRTCReceiveCounts.Field.allCases.map { field -> (Prometheus.Counter, Int) in
                if let c = series[field] { return (c, delta[field]) }
                let c = registry.makeCounter(
                    descriptor: MetricNameDescriptor(
                        metricName: field.rawValue,
                        unitName: "total",
                        helpText: field.help
                    ),
                    labels: [("stream", name), ("kind", kind)]
                )
                series[field] = c
                return (c, delta[field])
            }
            s.webrtc.counters[kind] = series
            return out
        }
        for (c, amount) in counters where amount > 0 { c.increment(by: Int64(amount)) }
    }

    /// WebRTC sessions and counters of `stream`; nil if it never had a WebRTC session.
    public func webrtc(stream: StreamKey) -> WebRTCStreamTelemetry? {
        state.withLock { t in
            guard let w = t.streams[stream.sourceKey]?.webrtc, w.sessionsGauge != nil || !w.counters.isEmpty else {
                return nil
            }
            return w.snapshot
        }
    }

    private func adjustWebRTCSessions(_ stream: StreamKey, by change: Int) {
        let registry = registry
        let name = stream.sourceKey.rawValue
        let (gauge, value) = withStream(stream) { s -> (Prometheus.Gauge, Int) in
            s.webrtc.snapshot.sessions = max(0, s.webrtc.snapshot.sessions + change)
            let g =
                s.webrtc.sessionsGauge
                ?? registry.makeGauge(
                    descriptor: MetricNameDescriptor(
                        metricName: "sluice_webrtc_sessions",
                        unitName: "",
                        helpText: "WHIP sessions publishing now"
                    ),
                    labels: [("stream", name)]
                )
            s.webrtc.sessionsGauge = g
            return (g, s.webrtc.snapshot.sessions)
        }
        gauge.set(to: Double(value))
    }
}
