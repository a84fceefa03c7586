import Logging
import MediaCore
import Synchronization
import Telemetry
import WebRTCTransport
import WebRTCWire

/// One task per viewer: transport events in order (connected, RTCP feedback, closed).
extension WHEPEgressService {
    func run(_ viewer: WHEPViewer, feed: WHEPStreamFeed, metadata: Logger.Metadata) {
        Task {
            var reason = "transport finished"
            loop: for await event in viewer.session.events {
                switch event {
                case .iceConnected(let remote):
                    logger.info("WHEP ICE connected", metadata: metadata.merging(["remote": "\(remote)"]) { $1 })
                case .connected(let profile):
                    logger.info("WHEP DTLS connected", metadata: metadata.merging(["srtp": "\(profile)"]) { $1 })
                    startPicture(viewer, feed: feed)
                case .rtcp(let bytes, _):
                    do throws(WebRTCWireError) {
                        try received(rtcp: bytes, from: viewer, feed: feed)
                    } catch {
                        // Bad input ends this one session, never the stream or another viewer.
                        reason = "malformed RTCP: \(error)"
                        viewer.session.close()
                    }
                case .rtp:
                    continue
                case .closed(let error):
                    if let error { reason = "\(error)" } else if !reason.hasPrefix("malformed") { reason = "closed" }
                    break loop
                }
            }
            viewer.closed()
            viewer.leaveRung()
            viewer.session.close()
            let remaining = state.withLock { s in
                s.viewers[viewer.id] = nil
                return s.viewers.values.filter { $0.key == viewer.key }.count
            }
            telemetry?.setWHEPViewers(stream: viewer.key, remaining)
            if feed.remove(viewer) { release(feed) }
            let c = viewer.counters
            var ended = metadata
            ended["reason"] = "\(reason)"
            ended["video_packets"] = "\(c.videoPacketsSent)"
            ended["audio_packets"] = "\(c.audioPacketsSent)"
            ended["dropped"] = "\(c.videoPacketsDropped + c.audioPacketsDropped)"
            ended["nacked"] = "\(c.nackedPackets)"
            ended["retransmitted"] = "\(c.retransmittedPackets)"
            ended["rtx"] = "\(c.retransmittedOnRTX)"
            ended["resends_skipped"] = "\(c.resendsSkipped)"
            ended["keyframe_requests"] = "\(c.keyframeRequests)"
            ended["steps_down"] = "\(c.stepsDown)"
            ended["steps_up"] = "\(c.stepsUp)"
            ended["estimate_kbps"] = "\(c.estimatedBitRate.map { "\($0 / 1000)" } ?? "-")"
            ended["rtt_ms"] =
                "\(c.roundTrip.map { "\($0.components.attoseconds / 1_000_000_000_000_000 + $0.components.seconds * 1000)" } ?? "-")"
            logger.info("WHEP session ended", metadata: ended)
        }
    }

    /// Fast join: the viewer's first picture is its own feed's keyframe when one can be asked for now (the WebRTC
    /// rung, or a WHIP publisher, outside their keyframe window); a viewer whose feed cannot give one now (an RTMP
    /// source cannot be asked; a WHIP publisher or the WebRTC rung inside the window) starts on the join rung's IDR
    /// and moves onto its own feed at that feed's next keyframe (`WHEPJoinSwitch`). The bridge is in place before the
    /// viewer takes any frame.
    func startPicture(_ viewer: WHEPViewer, feed: WHEPStreamFeed) {
        if !feed.requestKeyframe(), viewer.videoPayloadType != nil { joinOnRung(viewer, feed: feed) }
        viewer.connected()
        viewer.joiningRung?.requestKeyframe()
    }

    /// RFC 4585 §6.2.1 NACK → resend from history; §6.3.1 PLI / RFC 5104 §4.3.1 FIR → one shared keyframe request;
    /// RFC 3550 §6.4 report blocks → loss and round-trip time; REMB → the viewer's bandwidth estimate.
    func received(rtcp bytes: [UInt8], from viewer: WHEPViewer, feed: WHEPStreamFeed) throws(WebRTCWireError) {
        var wantsKeyframe = false
        for packet in try RTCPPacket.parseCompound(bytes) {
            switch packet {
            case .genericNACK(let nack):
                guard let kind = feed.kind(ofSSRC: nack.mediaSSRC) else { continue }
                let lost = nack.lostSequenceNumbers
                let found = kind == .video ? viewer.nacked(lost) { feed.history(.video, $0) } : feed.history(kind, lost)
                viewer.count { $0.nackedPackets += nack.lostSequenceNumbers.count }
                let interval = max(.milliseconds(100), (viewer.counters.roundTrip ?? .zero) * 3 / 2)
                viewer.retransmit(viewer.dueForResend(found, kind: kind, now: .now, interval: interval), kind: kind)
            case .pictureLossIndication(_, let media) where media == feed.videoSSRC:
                wantsKeyframe = true
            case .fullIntraRequest(let fir) where fir.entries.contains(where: { $0.ssrc == feed.videoSSRC }):
                wantsKeyframe = true
            case .receiverEstimatedMaxBitrate(let remb) where remb.ssrcs.contains(feed.videoSSRC) || remb.ssrcs.isEmpty:
                viewer.count { $0.estimatedBitRate = remb.bitrate }
                adapt(viewer, feed: feed, estimate: Double(remb.bitrate))
            case .receiverReport(let report):
                note(report.reports, viewer: viewer, feed: feed)
            case .senderReport(let report):
                note(report.reports, viewer: viewer, feed: feed)
            default:
                continue
            }
        }
        if wantsKeyframe {
            viewer.count { $0.keyframeRequests += 1 }
            (viewer.joiningRung ?? feed).requestKeyframe()
        }
    }

    /// Loss fraction of our video and, when the block echoes one of our sender reports, the round trip (§6.4.1).
    private func note(_ blocks: [RTCPReportBlock], viewer: WHEPViewer, feed: WHEPStreamFeed) {
        guard let block = blocks.first(where: { $0.ssrc == feed.videoSSRC }) ?? blocks.first else { return }
        var roundTrip: Duration?
        if block.lastSenderReport != 0 {
            let now = UInt32(truncatingIfNeeded: RTCPSenderReport.ntpTimestamp(.now()) >> 16)
            let units = now &- block.lastSenderReport &- block.delaySinceLastSenderReport
            // A negative round trip (clock rounding) wraps to a huge value: ignore anything over a minute.
            if units < 60 * 65_536 { roundTrip = .nanoseconds(Int64(units) * 1_000_000_000 / 65_536) }
        }
        viewer.count { c in
            if block.ssrc == feed.videoSSRC { c.fractionLost = block.fractionLost }
            if let roundTrip { c.roundTrip = roundTrip }
        }
    }
}
