import MediaCore
import Prometheus

extension GatewayTelemetry {
    /// A stream's air changed hands (`reason`: left, stalled, takeover, returned, failback, flapping): counts
    /// `sluice_ingest_switches_total{stream,reason}`.
    public func countIngestSwitch(stream: StreamKey, reason: String) {
        // The registry hands back the same counter for the same name and labels.
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "sluice_ingest_switches",
                unitName: "total",
                helpText: "Changes of who is on a stream's air (primary, backup, slate), by reason"
            ),
            labels: [("stream", stream.rawValue), ("reason", reason)]
        ).increment()
    }
}
