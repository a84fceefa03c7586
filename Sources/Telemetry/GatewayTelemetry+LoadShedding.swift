import MediaCore
import Prometheus
import Synchronization

/// One stream's ladder load-shedding state behind the telemetry lock, with its Prometheus twins.
struct LoadSheddingState: Sendable {
    /// What is shed now, one sentence per rung, for `/api/streams` notes.
    var notes: [String: String] = [:]
    var steps: [String: Prometheus.Counter] = [:]
    var levels: [String: Prometheus.Gauge] = [:]
}

extension GatewayTelemetry {
    /// A load-shedding step of a stream's ladder: counts `sluice_ladder_shed_steps_total{stream,rendition,step}`, sets
    /// `sluice_ladder_rung_shed_level{stream,rendition}` (0 normal, 1 faster preset, 2 left out of the multivariant)
    /// and keeps `note` (nil clears it) until the next step of that rung.
    public func recordShedStep(stream: StreamKey, rung: String, step: String, level: Int, note: String?) {
        let registry = registry
        let name = stream.sourceKey.rawValue
        let (counter, gauge) = withStream(stream) { s -> (Prometheus.Counter, Prometheus.Gauge) in
            s.loadShedding.notes[rung] = note
            let counter =
                s.loadShedding.steps["\(rung)/\(step)"]
                ?? registry.makeCounter(
                    descriptor: MetricNameDescriptor(
                        metricName: "sluice_ladder_shed_steps",
                        unitName: "total",
                        helpText: "Load-shedding steps of the ladder (faster_preset, normal_preset, drop, restore)"
                    ),
                    labels: [("stream", name), ("rendition", rung), ("step", step)]
                )
            s.loadShedding.steps["\(rung)/\(step)"] = counter
            let gauge =
                s.loadShedding.levels[rung]
                ?? registry.makeGauge(
                    descriptor: MetricNameDescriptor(
                        metricName: "sluice_ladder_rung_shed_level",
                        unitName: "",
                        helpText:
                            "How far a rung is shed: 0 normal, 1 faster x264 preset, 2 left out of the multivariant"
                    ),
                    labels: [("stream", name), ("rendition", rung)]
                )
            s.loadShedding.levels[rung] = gauge
            return (counter, gauge)
        }
        counter.increment()
        gauge.set(to: Double(level))
    }

    /// What the ladder of `stream` sheds now, one sentence per rung, sorted by rung.
    public func shedNotes(stream: StreamKey) -> [String] {
        state.withLock { t in
            (t.streams[stream.sourceKey]?.loadShedding.notes ?? [:]).sorted { $0.key < $1.key }.map(\.value)
        }
    }
}
