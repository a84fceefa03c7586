import MediaCore
import Prometheus

/// What WHEP egress counts per stream and track kind, each a `sluice_whep_<name>_total` counter.
public enum WHEPCounter: String, Sendable, CaseIterable {
    /// RTP packets sent to viewers (each viewer's copy counts).
    case packetsSent = "sluice_whep_packets_sent"
    /// Packets a slow viewer's full queue refused (that viewer then waits for the next keyframe).
    case packetsDropped = "sluice_whep_packets_dropped"
    /// Sequence numbers viewers NACKed (RFC 4585 §6.2.1).
    case nackedPackets = "sluice_whep_nacked_packets"
    /// Of those, resent from the track's history.
    case retransmittedPackets = "sluice_whep_retransmitted_packets"
    /// Of those, sent on the viewer's RTX stream (RFC 4588, when its offer had `rtx`).
    case rtxPackets = "sluice_whep_rtx_packets"
    /// PLI and FIR received from viewers (RFC 4585 §6.3.1, RFC 5104 §4.3.1).
    case keyframeRequests = "sluice_whep_keyframe_requests"

    var help: String {
        switch self {
        case .packetsSent: "RTP packets sent to WHEP viewers"
        case .packetsDropped: "RTP packets dropped at a WHEP viewer's full queue"
        case .nackedPackets: "Sequence numbers WHEP viewers reported lost (generic NACK)"
        case .retransmittedPackets: "NACKed packets resent from history"
        case .rtxPackets: "NACKed packets resent on the RTX stream (RFC 4588)"
        case .keyframeRequests: "PLI/FIR received from WHEP viewers"
        }
    }
}

extension GatewayTelemetry {
    /// Adds `amount` to one WHEP counter of `stream` (`kind` is `video` or `audio`); the registry keeps one series per
    /// name and labels, so repeated calls add to the same counter.
    public func countWHEP(_ counter: WHEPCounter, stream: StreamKey, kind: String, _ amount: Int) {
        let c = registry.makeCounter(
            descriptor: MetricNameDescriptor(metricName: counter.rawValue, unitName: "total", helpText: counter.help),
            labels: [("stream", stream.sourceKey.rawValue), ("kind", kind)]
        )
        if amount > 0 { c.increment(by: Int64(amount)) }
    }

    /// Sets `sluice_whep_viewers{stream}` to the viewers connected to `stream` now.
    public func setWHEPViewers(stream: StreamKey, _ count: Int) {
        let gauge = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                metricName: "sluice_whep_viewers",
                unitName: "",
                helpText: "WHEP viewers of the stream now"
            ),
            labels: [("stream", stream.sourceKey.rawValue)]
        )
        gauge.set(to: Double(count))
    }
}
