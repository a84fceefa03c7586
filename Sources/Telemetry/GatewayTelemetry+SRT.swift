import MediaCore
import Prometheus
import Synchronization

/// One stream's SRT ingest state behind the telemetry lock, with its Prometheus twins.
struct SRTState: Sendable {
    var sessions = 0
    var last = SRTLinkStats()
    var sessionsGauge: Prometheus.Gauge?
    var gauges: [String: Prometheus.Gauge] = [:]
    var counters: [String: Prometheus.Counter] = [:]
}

extension GatewayTelemetry {
    /// An SRT session started publishing `stream` (`sluice_srt_sessions` goes up).
    public func srtSessionStarted(stream: StreamKey) {
        let (gauge, value) = withStream(stream) { s -> (Prometheus.Gauge, Int) in
            s.srt.sessions += 1
            s.srt.last = SRTLinkStats()
            let g = s.srt.sessionsGauge ?? makeSRTGauge("sluice_srt_sessions", "SRT sessions publishing now", stream)
            s.srt.sessionsGauge = g
            return (g, s.srt.sessions)
        }
        gauge.set(to: Double(value))
    }

    /// An SRT session of `stream` ended.
    public func srtSessionEnded(stream: StreamKey) {
        let gauge = withStream(stream) { s -> (Prometheus.Gauge?, Int) in
            s.srt.sessions = max(0, s.srt.sessions - 1)
            return (s.srt.sessionsGauge, s.srt.sessions)
        }
        gauge.0?.set(to: Double(gauge.1))
    }

    /// Records the latest libsrt statistics of `stream`'s session (totals since it connected).
    public func recordSRT(stream: StreamKey, _ stats: SRTLinkStats) {
        let updates = withStream(stream) { s -> [(Prometheus.Gauge?, Prometheus.Counter?, Double)] in
            let last = s.srt.last
            s.srt.last = stats
            let gauges: [(String, String, Double)] = [
                ("sluice_srt_rtt_seconds", "SRT smoothed round-trip time", stats.roundTrip.secondsValue),
                ("sluice_srt_latency_seconds", "SRT receive latency window (TSBPD delay)", stats.latency.secondsValue),
                ("sluice_srt_receive_bits_per_second", "SRT receiving rate", stats.receiveBitsPerSecond),
            ]
            let counters: [(String, String, Int64)] = [
                (
                    "sluice_srt_packets_received_total", "SRT data packets received",
                    stats.packetsReceived - last.packetsReceived
                ),
                (
                    "sluice_srt_packets_lost_total", "SRT packets detected lost (then asked again)",
                    stats.packetsLost - last.packetsLost
                ),
                (
                    "sluice_srt_packets_retransmitted_total", "SRT retransmitted packets received",
                    stats.packetsRetransmitted - last.packetsRetransmitted
                ),
                (
                    "sluice_srt_packets_dropped_total", "SRT packets given up at the latency window (media lost)",
                    stats.packetsDropped - last.packetsDropped
                ),
            ]
            var out: [(Prometheus.Gauge?, Prometheus.Counter?, Double)] = []
            for (name, help, value) in gauges {
                let g = s.srt.gauges[name] ?? makeSRTGauge(name, help, stream)
                s.srt.gauges[name] = g
                out.append((g, nil, value))
            }
            for (name, help, delta) in counters {
                let c = s.srt.counters[name] ?? makeSRTCounter(name, help, stream)
                s.srt.counters[name] = c
                out.append((nil, c, Double(max(0, delta))))
            }
            return out
        }
        for (gauge, counter, value) in updates {
            gauge?.set(to: value)
            if let counter, value > 0 { counter.increment(by: Int64(value)) }
        }
    }

    /// The latest libsrt statistics of `stream`, nil if it never had an SRT session.
    public func srt(stream: StreamKey) -> SRTLinkStats? {
        state.withLock { t in
            guard let s = t.streams[stream.sourceKey]?.srt, s.sessionsGauge != nil else { return nil }
            return s.last
        }
    }

    private func makeSRTGauge(_ name: String, _ help: String, _ stream: StreamKey) -> Prometheus.Gauge {
        registry.makeGauge(
            descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help),
            labels: [("stream", stream.sourceKey.rawValue)]
        )
    }

    private func makeSRTCounter(_ name: String, _ help: String, _ stream: StreamKey) -> Prometheus.Counter {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help),
            labels: [("stream", stream.sourceKey.rawValue)]
        )
    }
}

extension Duration {
    /// Seconds as a Double, for gauges.
    fileprivate var secondsValue: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
