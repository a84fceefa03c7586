/// RFC 3550 §6.4.1 and RFC 4585 §6.2-6.3: what a WebRTC receiver counted for one media kind of a stream, the
/// numbers W3C webrtc-stats calls packetsReceived, packetsLost, nackCount, retransmittedPacketsReceived and pliCount.
public struct WebRTCReceiveCounts: Sendable, Hashable, Codable {
    /// RTP media packets received on the media SSRC (retransmissions over RTX are counted apart).
    public var packetsReceived = 0
    /// Sequence numbers found missing when a later packet arrived (repaired or not; reordering counts too).
    public var packetsLost = 0
    /// Sequence numbers given up after the reorder wait: the depacketizer saw them as lost.
    public var packetsUnrecovered = 0
    /// Generic NACK feedback messages sent (RFC 4585 §6.2.1).
    public var nacksSent = 0
    /// Sequence numbers asked for in those NACKs, retries included.
    public var nackedPackets = 0
    /// Packets that arrived for a NACKed sequence number (over RTX or the media payload type).
    public var retransmissionsReceived = 0
    /// Picture Loss Indications sent (RFC 4585 §6.3.1).
    public var plisSent = 0
    /// Full Intra Requests sent (RFC 5104 §4.3.1), to publishers that offered `ccm fir` but not `nack pli`.
    public var firsSent = 0

    /// All zero.
    public init() {}

    /// Nothing counted.
    public var isZero: Bool { self == WebRTCReceiveCounts() }

    /// Field-wise difference (`self` newer than `older`): what to add to cumulative counters.
    public func subtracting(_ older: WebRTCReceiveCounts) -> WebRTCReceiveCounts {
        var d = WebRTCReceiveCounts()
        for field in Field.allCases { d[field] = self[field] - older[field] }
        return d
    }

    /// Field-wise sum.
    public func adding(_ other: WebRTCReceiveCounts) -> WebRTCReceiveCounts {
        var d = self
        for field in Field.allCases { d[field] += other[field] }
        return d
    }

    /// One counter; the Prometheus name and help of each.
    public enum Field: String, CaseIterable, Sendable {
        case packetsReceived = "sluice_webrtc_packets_received"
        case packetsLost = "sluice_webrtc_packets_lost"
        case packetsUnrecovered = "sluice_webrtc_packets_unrecovered"
        case nacksSent = "sluice_webrtc_nacks_sent"
        case nackedPackets = "sluice_webrtc_nacked_packets"
        case retransmissionsReceived = "sluice_webrtc_retransmissions_received"
        case plisSent = "sluice_webrtc_plis_sent"
        case firsSent = "sluice_webrtc_firs_sent"

        var help: String {
            switch self {
            case .packetsReceived: "RTP media packets received from WebRTC publishers"
            case .packetsLost: "RTP sequence numbers found missing on arrival (before NACK repair)"
            case .packetsUnrecovered: "RTP sequence numbers given up after the reorder wait (not repaired)"
            case .nacksSent: "Generic NACK feedback messages sent to WebRTC publishers"
            case .nackedPackets: "RTP sequence numbers requested in generic NACKs, retries included"
            case .retransmissionsReceived: "Retransmitted RTP packets received for NACKed sequence numbers"
            case .plisSent: "Picture Loss Indications sent to WebRTC publishers"
            case .firsSent: "Full Intra Requests sent to WebRTC publishers"
            }
        }
    }

    /// The value of one field.
    public subscript(field: Field) -> Int {
        get {
            switch field {
            case .packetsReceived: packetsReceived
            case .packetsLost: packetsLost
            case .packetsUnrecovered: packetsUnrecovered
            case .nacksSent: nacksSent
            case .nackedPackets: nackedPackets
            case .retransmissionsReceived: retransmissionsReceived
            case .plisSent: plisSent
            case .firsSent: firsSent
            }
        }
        set {
            switch field {
            case .packetsReceived: packetsReceived = newValue
            case .packetsLost: packetsLost = newValue
            case .packetsUnrecovered: packetsUnrecovered = newValue
            case .nacksSent: nacksSent = newValue
            case .nackedPackets: nackedPackets = newValue
            case .retransmissionsReceived: retransmissionsReceived = newValue
            case .plisSent: plisSent = newValue
            case .firsSent: firsSent = newValue
            }
        }
    }
}

/// What telemetry knows about a stream's WebRTC ingest: live sessions and receive counters per media kind.
public struct WebRTCStreamTelemetry: Sendable, Hashable, Codable {
    /// WHIP sessions publishing this stream now.
    public var sessions = 0
    /// Counters by media kind (`video`, `audio`), summed over every session of the stream.
    public var kinds: [String: WebRTCReceiveCounts] = [:]

    /// Nothing yet.
    public init() {}
}
