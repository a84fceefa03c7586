import MediaCore
import WebRTCWire

/// RFC 4585 §6.2.1 for one viewer: what a NACK names as it was sent, what is due again, and the resend itself (on
/// the RTX stream when negotiated, RFC 4588 §4).
extension WHEPViewerState {
    /// Where the packet a NACK names is found.
    enum NackedPacket: Sendable, Equatable {
        /// As this viewer got it, from its own history.
        case sent([UInt8])
        /// Its feed's packet `original`, renumbered to the viewer's `sequence`.
        case feed(original: UInt16, sequence: UInt16)
        /// Never sent to it, or forgotten.
        case unknown
    }

    /// Where each sequence number of a video NACK is found; nil when the viewer keeps its feed's numbering (the feed's
    /// history answers as it is).
    func nacked(_ sequenceNumbers: [UInt16]) -> [NackedPacket]? {
        guard let bridge else { return nil }
        return sequenceNumbers.map { sequence -> NackedPacket in
            if bridge.recordsAll, let packet = bridge.history?.packet(sequence) { return .sent(packet) }
            switch bridge.timeline.origin(ofSent: sequence) {
            case .rung: return bridge.history?.packet(sequence).map(NackedPacket.sent) ?? .unknown
            case .own(let original): return .feed(original: original, sequence: sequence)
            case nil: return .unknown
            }
        }
    }

    /// The packets not resent within `interval` before `now`, within a budget of a quarter of the packets it was sent
    /// the second before (at least 25 a second); each is stamped resent now. A receiver NACKs a missing packet again
    /// every round trip until the repair lands, and on a congested link each extra copy only deepens the queue that
    /// lost it (a 1.2 Mb/s bottleneck in e2e: five resends per packet sent before this). Video sent before the last
    /// keyframe is never resent: the decoder starts again there (after a step down, old-rendition NACKs spent the
    /// budget the new rendition's losses needed).
    mutating func dueForResend(
        _ packets: [[UInt8]],
        kind: MediaKind,
        now: ContinuousClock.Instant,
        interval: Duration
    ) -> [[UInt8]] {
        let sent = counters.videoPacketsSent + counters.audioPacketsSent
        if now - resends.windowStart >= .seconds(1) {
            resends.budget = max(25, (sent - resends.sentAtWindowStart) / 4)
            resends.windowStart = now
            resends.sentAtWindowStart = sent
        }
        if resends.at.count > 4_096 { resends.at = resends.at.filter { now - $0.value < interval } }
        let due = packets.filter { bytes in
            guard let sequence = WHEPJoinSwitch.sequence(of: bytes), resends.budget > 0 else { return false }
            if kind == .video, let keyframe = resends.keyframeSequence, Int16(bitPattern: sequence &- keyframe) < 0 {
                return false
            }
            let key = UInt32(kind == .video ? 1 : 2) << 16 | UInt32(sequence)
            if let at = resends.at[key], now - at < interval { return false }
            resends.at[key] = now
            resends.budget -= 1
            return true
        }
        counters.resendsSkipped += packets.count - due.count
        return due
    }

    /// Resends NACKed packets within the queue bound: on the RTX stream when negotiated (RFC 4588 §4: the OSN in
    /// front, RTX payload type, SSRC and sequence), else the same packets again (RFC 4585 §6.2.1).
    mutating func retransmit(_ packets: [[UInt8]], kind: MediaKind, transmitted: Int) -> [Action] {
        guard let payloadType = kind == .video ? videoPayloadType : audioPayloadType, !packets.isEmpty else {
            return []
        }
        var actions: [Action] = []
        guard kind == .video, let rtx = videoRetransmission else {
            if hand(packets, payloadType: payloadType, transmitted: transmitted, into: &actions) {
                counters.retransmittedPackets += packets.count
            }
            return actions
        }
        let wrapped = WHEPViewer.retransmissions(packets, on: rtx, sequence: &rtxSequence)
        guard hand(wrapped, payloadType: rtx.payloadType, transmitted: transmitted, into: &actions) else { return [] }
        counters.retransmittedPackets += wrapped.count
        counters.retransmittedOnRTX += wrapped.count
        return actions
    }
}
