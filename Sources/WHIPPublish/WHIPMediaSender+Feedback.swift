import MediaCore
import WebRTCWire

/// RFC 4585 §6.2.1 (generic NACK), §6.3.1 (PLI), RFC 5104 §4.3.1 (FIR) and RFC 3550 §6.4.1 (SR): the sender's
/// answers to receiver feedback and its own reports.
extension WHIPMediaSender {
    /// One decrypted RTCP compound packet from the receiver.
    public mutating func received(rtcp bytes: [UInt8], now: ContinuousClock.Instant) -> [Action] {
        let packets: [RTCPPacket]
        do {
            packets = try RTCPPacket.parseCompound(bytes)
        } catch {
            counters.malformedRTCP += 1
            return []
        }
        var actions: [Action] = []
        var wantsKeyframe = false
        for packet in packets {
            switch packet {
            case .genericNACK(let nack):
                actions += retransmit(nack)
            case .pictureLossIndication(_, let media) where media == video.ssrc:
                wantsKeyframe = true
            case .fullIntraRequest(let fir) where fir.entries.contains(where: { $0.ssrc == video.ssrc }):
                wantsKeyframe = true
            case .receiverReport(let report):
                if let block = report.reports.first(where: { $0.ssrc == video.ssrc }) {
                    counters.lastFractionLost = block.fractionLost
                }
            default:
                break
            }
        }
        if wantsKeyframe {
            counters.keyframeRequestsReceived += 1
            // Within the spacing the request waits (send(video:) passes it on), unless a keyframe answers it first.
            if keyframePacer.requested(now: now) {
                counters.keyframesForced += 1
                actions.append(.requestKeyframe)
            }
        }
        return actions
    }

    /// Resends what history still holds, same SSRC and sequence number (RFC 4588 §5 without an RTX stream).
    private mutating func retransmit(_ nack: RTCPGenericNACK) -> [Action] {
        let history: RTPSendHistory
        switch nack.mediaSSRC {
        case video.ssrc: history = video.history
        case audio.ssrc: history = audio.history
        default: return []
        }
        counters.nackedPackets += nack.lostSequenceNumbers.count
        let found = nack.lostSequenceNumbers.compactMap { history.packet($0) }
        counters.retransmittedPackets += found.count
        return found.map { .sendRTP($0) }
    }

    /// Timer work: a sender report per track that has sent, plus the CNAME, every `reportInterval`.
    public mutating func tick(now: ContinuousClock.Instant, wall: WallTime) -> [Action] {
        if let last = lastReport, last.duration(to: now) < configuration.reportInterval { return [] }
        let reports = [video, audio].compactMap { track -> RTCPPacket? in
            guard let anchor = track.anchor else { return nil }
            return .senderReport(Self.senderReport(for: track, anchor: anchor, at: wall))
        }
        guard !reports.isEmpty else { return [] }
        lastReport = now
        counters.senderReportsSent += reports.count
        let cname = RTCPSourceDescriptionChunk.Item(type: 1, text: configuration.cname)
        let chunks = [video, audio].filter { $0.anchor != nil }.map {
            RTCPSourceDescriptionChunk(ssrc: $0.ssrc, items: [cname])
        }
        return [.sendRTCP(RTCPPacket.serializeCompound(reports + [.sourceDescription(chunks)]))]
    }

    /// The report tying `wall` to the RTP clock: the anchor's timestamp advanced by the wall time since it.
    static func senderReport(for track: Track, anchor: ClockAnchor, at wall: WallTime) -> RTCPSenderReport {
        let elapsed = wall.duration(since: anchor.wall)
        let ticks =
            elapsed.components.seconds * track.clockRate
            + elapsed.components.attoseconds / (1_000_000_000_000_000_000 / track.clockRate)
        return RTCPSenderReport(
            ssrc: track.ssrc,
            ntpTimestamp: RTCPSenderReport.ntpTimestamp(wall),
            rtpTimestamp: anchor.rtpTimestamp &+ UInt32(truncatingIfNeeded: ticks),
            packetCount: track.packets,
            octetCount: track.octets
        )
    }
}
