import MediaCore
import Synchronization

/// One WHEP viewer as `/api/whep` and `sluice stats` show it: where it is, what it was sent, what it reported.
public struct WHEPViewerReport: Sendable, Codable, Equatable {
    /// The stream key watched.
    public var stream: String
    /// The session id (the last path segment of its `Location`).
    public var session: String
    /// `passthrough`, `rung 480p` or `webrtc-rung`.
    public var video: String
    /// `connecting`, `waitingForKeyframe`, `playing` or `closed`.
    public var phase: String
    /// Round-trip time from the viewer's last receiver report that echoed a sender report (RFC 3550 §6.4.1).
    public var rttMs: Double?
    /// The viewer's last reported video loss fraction, 0…1.
    public var fractionLost: Double
    /// The bit rate the viewer's receiver last estimated it can take (REMB), in kb/s; nil until one came.
    public var estimatedKbps: Int? = nil
    public var videoPacketsSent: Int
    public var audioPacketsSent: Int
    /// Packets its full queue refused.
    public var packetsDropped: Int
    /// Sequence numbers it NACKed, and of those, resent.
    public var nackedPackets: Int
    public var retransmittedPackets: Int
    /// Of those, sent on its RTX stream (RFC 4588; 0 when its offer had no `rtx`).
    public var retransmittedOnRTX: Int = 0
    /// PLI/FIR it sent.
    public var keyframeRequests: Int
    /// Video frames it got from the join rung while it joined (`whep.join_on_rung`).
    public var framesFromRung: Int = 0
    /// It joined on the join rung, and it is still on it (its own rendition's keyframe has not taken over yet).
    public var joinedOnJoinRung = false
    public var onJoinRung = false
    /// Moves onto a lower rendition for its bandwidth, and back (`whep.adapt_to_bandwidth`).
    public var stepsDown = 0
    public var stepsUp = 0
}

extension WHEPEgressService {
    /// Every viewer now, by stream then session.
    public func viewerReports() -> [WHEPViewerReport] {
        let viewers = state.withLock { Array($0.viewers.values) }
        return viewers.map { viewer in
            let c = viewer.counters
            return WHEPViewerReport(
                stream: viewer.key.rawValue,
                session: viewer.id,
                video: viewer.currentVideoSource,
                phase: "\(viewer.phase)",
                rttMs: c.roundTrip.map {
                    Double($0.components.attoseconds) / 1e15 + Double($0.components.seconds) * 1e3
                },
                fractionLost: Double(c.fractionLost) / 256,
                estimatedKbps: c.estimatedBitRate.map { Int($0 / 1000) },
                videoPacketsSent: c.videoPacketsSent,
                audioPacketsSent: c.audioPacketsSent,
                packetsDropped: c.videoPacketsDropped + c.audioPacketsDropped,
                nackedPackets: c.nackedPackets,
                retransmittedPackets: c.retransmittedPackets,
                retransmittedOnRTX: c.retransmittedOnRTX,
                keyframeRequests: c.keyframeRequests,
                framesFromRung: c.framesFromRung,
                joinedOnJoinRung: viewer.joinedOnJoinRung,
                onJoinRung: viewer.onJoinRung,
                stepsDown: c.stepsDown,
                stepsUp: c.stepsUp
            )
        }
        .sorted { ($0.stream, $0.session) < ($1.stream, $1.session) }
    }
}
