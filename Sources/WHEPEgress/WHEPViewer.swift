import MediaCore
import Synchronization
import WebRTCTransport
import WebRTCWire

/// One WHEP viewer: its transport session and what it negotiated; what changes (its phase, join, queue, resends) is
/// one `WHEPViewerState` under one lock, whose actions it carries out. A slow viewer loses its own packets, never the
/// stream's or another viewer's.
final class WHEPViewer: Sendable {
    /// Where a viewer is in its life.
    enum Phase: Sendable, Equatable {
        /// ICE and DTLS have not finished: nothing can be sent.
        case connecting
        /// Connected; video waits for a keyframe (first join, or after its queue overflowed).
        case waitingForKeyframe
        /// Receiving every packet.
        case playing
        /// Gone.
        case closed
    }

    /// What one viewer sent and received, for metrics and the log line at its end.
    struct Counters: Sendable, Equatable {
        var videoPacketsSent = 0
        var audioPacketsSent = 0
        var videoPacketsDropped = 0
        var audioPacketsDropped = 0
        var nackedPackets = 0
        var retransmittedPackets = 0
        /// Of those, sent on the RTX stream (RFC 4588) rather than as the original packet.
        var retransmittedOnRTX = 0
        /// NACKed packets not resent: resent less than a round trip (at least 100 ms) before, or over the budget.
        var resendsSkipped = 0
        var keyframeRequests = 0
        /// Video frames sent from the join rung while joining its own feed (`WHEPJoinSwitch`).
        var framesFromRung = 0
        /// Moves onto a lower rendition and back (`WHEPBandwidthAdaptation`), each counted when its keyframe came.
        var stepsDown = 0
        var stepsUp = 0
        /// Last receiver report's loss fraction for video, out of 256 (RFC 3550 §6.4.1).
        var fractionLost: UInt8 = 0
        /// Round trip from the last receiver report that echoed one of our sender reports.
        var roundTrip: Duration?
        /// The bit rate the viewer's receiver last estimated it can take (REMB, draft-alvestrand-rmcat-remb-03).
        var estimatedBitRate: UInt64?
    }

    let id: String
    let key: StreamKey
    let session: WebRTCSession
    /// Payload type the viewer's offer gave H.264 (nil: it receives no video).
    let videoPayloadType: UInt8?
    /// Which feed it watches, for reports.
    let videoSource: String
    /// Lower ladder rungs it may step down to when its bandwidth cannot take its own feed, highest first.
    let lowerRenditions: [WHEPVideoSource]
    /// Everything that changes, under one lock: each event gives the actions carried out here.
    let state: Mutex<WHEPViewerState<RungLink>>
    /// Packets the transport finished with, counted on its event loop without the lock (`WHEPViewerState.admit`).
    private let transmitted = Atomic<Int>(0)

    /// The rung a viewer takes (the join rung, or a lower rendition), and what to call once it is off it (the service
    /// lets an unwatched rung stop).
    struct RungLink: Sendable {
        let feed: WHEPStreamFeed
        let leave: @Sendable (WHEPViewer, WHEPStreamFeed) -> Void
    }

    init(
        id: String,
        key: StreamKey,
        session: WebRTCSession,
        videoPayloadType: UInt8?,
        audioPayloadType: UInt8?,
        videoRetransmission: RetransmissionStream? = nil,
        queueLimit: Int,
        videoSource: String = "",
        lowerRenditions: [WHEPVideoSource] = []
    ) {
        self.id = id
        self.key = key
        self.session = session
        self.videoPayloadType = videoPayloadType
        self.videoSource = videoSource
        self.lowerRenditions = lowerRenditions
        state = Mutex(
            WHEPViewerState(
                videoPayloadType: videoPayloadType,
                audioPayloadType: audioPayloadType,
                videoRetransmission: videoRetransmission,
                queueLimit: queueLimit,
                rtxSequence: UInt16.random(in: 0...UInt16.max)
            )
        )
    }

    var phase: Phase { state.withLock { $0.phase } }
    var counters: Counters { state.withLock { $0.counters } }

    /// DTLS finished: audio may flow, video from the next keyframe.
    func connected() { state.withLock { $0.connected() } }

    /// The session ended.
    func closed() { state.withLock { $0.closed() } }

    /// Joins on `rung` until its own feed's next keyframe (`WHEPJoinSwitch`); `leave` runs once it is off it.
    func joinOnRung(
        _ rung: WHEPStreamFeed,
        timeline: WHEPJoinSwitch,
        ssrc: UInt32,
        historyCapacity: Int,
        leave: @escaping @Sendable (WHEPViewer, WHEPStreamFeed) -> Void
    ) {
        let link = RungLink(feed: rung, leave: leave)
        state.withLock { $0.joinOnRung(link, timeline: timeline, ssrc: ssrc, historyCapacity: historyCapacity) }
    }

    /// The rung whose frames it shows now (keyframe requests go there); nil while on its own feed.
    var joiningRung: WHEPStreamFeed? { state.withLock { $0.joiningRung?.feed } }

    /// True once a bridged viewer moved onto its own feed.
    var switchedToOwnFeed: Bool { state.withLock { $0.timelinePhase == .switched } }

    /// Where its timeline is (nil: it never left its own feed's numbering).
    var timelinePhase: WHEPJoinSwitch.Phase? { state.withLock { $0.timelinePhase } }

    /// It joined on the join rung, and is still on it.
    var onJoinRung: Bool { state.withLock { $0.onJoinRung } }

    /// It joined on the join rung (whether or not it has left it since).
    var joinedOnJoinRung: Bool { state.withLock { $0.joinedOnJoinRung } }

    /// The lower rendition it takes or is moving onto (nil: its own feed, or the join rung while joining).
    var lowerRendition: WHEPStreamFeed? { state.withLock { $0.lowerRendition?.feed } }

    /// Which rendition it gets now (`passthrough`, `rung 360p`…), for reports: the lower rendition while it takes
    /// one, else its own (a join on the join rung shows in `onJoinRung`, not here).
    var currentVideoSource: String {
        guard let rung = state.withLock({ $0.showingLowerRendition?.feed }) else { return videoSource }
        return "\(rung.videoSource)"
    }

    /// Starts a step down onto `rung`, a lower rendition, at its next keyframe (`WHEPJoinSwitch`): its timestamps
    /// move by `timestampShift`, the viewer's SSRC stays `ssrc`. False while it joins or takes a rung already.
    func stepDown(
        onto rung: WHEPStreamFeed,
        timestampShift: UInt32,
        ssrc: UInt32,
        ownPosition: (nextSequence: UInt16, lastTimestamp: UInt32?),
        historyCapacity: Int,
        leave: @escaping @Sendable (WHEPViewer, WHEPStreamFeed) -> Void
    ) -> Bool {
        let link = RungLink(feed: rung, leave: leave)
        return state.withLock { s in
            s.stepDown(
                onto: link,
                timestampShift: timestampShift,
                ssrc: ssrc,
                ownPosition: ownPosition,
                historyCapacity: historyCapacity
            )
        }
    }

    /// Its lower rendition stopped: back onto its own feed (`WHEPJoinSwitch.rungEnded`); false when it was not on one.
    func lowerRenditionEnded() -> Bool {
        guard let actions = state.withLock({ $0.lowerRenditionEnded() }) else { return false }
        perform(actions)
        return true
    }

    /// Starts the step back up onto its own feed at that feed's next keyframe (a step down still waiting for the lower
    /// rendition's keyframe is called off, and the rung left at once). False when it is on its own feed.
    func stepUp() -> Bool {
        guard let actions = state.withLock({ $0.stepUp() }) else { return false }
        perform(actions)
        return true
    }

    /// Stops taking the rung (at the switch, or when the session ends while bridging).
    func leaveRung() { perform(state.withLock { $0.leaveRung() }) }

    /// Updates counters under the lock.
    func count(_ change: (inout Counters) -> Void) { state.withLock { change(&$0.counters) } }

    /// One receiver estimate through its bandwidth adaptation (`WHEPBandwidthAdaptation`).
    func adaptation<T>(_ body: (inout WHEPBandwidthAdaptation) -> T) -> T { state.withLock { body(&$0.adaptation) } }

    /// Sends one video access unit's packets when the viewer is in sync (or it is a keyframe to join on); true when
    /// the viewer needs a keyframe (it waits for one, or just dropped one for a full queue).
    /// `origin` says which feed sent it, for a viewer joining on the rung.
    func deliver(video packets: [[UInt8]], keyframe: Bool, origin: WHEPJoinSwitch.Origin = .own) -> Bool {
        guard videoPayloadType != nil else { return false }
        let actions = state.withLock { s in
            let actions = s.video(
                packets,
                keyframe: keyframe,
                origin: origin,
                transmitted: transmitted.load(ordering: .relaxed)
            )
            // Handed over under the lock: two feeds' frames (a join, a step) reach the transport in numbering order.
            for case .transmit(let packets, let payloadType) in actions { transmit(packets, payloadType: payloadType) }
            return actions
        }
        perform(actions, transmitting: false)
        return actions.contains { if case .needsKeyframe = $0 { true } else { false } }
    }

    /// The packets a NACK names as this viewer was sent them: `feedHistory` answers for sequence numbers of its feed
    /// (a bridged viewer's are mapped, and answered from its own history while they came from the rung).
    func nacked(_ sequenceNumbers: [UInt16], feedHistory: ([UInt16]) -> [[UInt8]]) -> [[UInt8]] {
        guard let mapped = state.withLock({ $0.nacked(sequenceNumbers) }) else { return feedHistory(sequenceNumbers) }
        return mapped.compactMap { found -> [UInt8]? in
            switch found {
            case .sent(let bytes): return bytes
            case .feed(let original, let sequence):
                guard var bytes = feedHistory([original]).first, bytes.count >= 12 else { return nil }
                WHEPJoinSwitch.renumber(&bytes, sequence: sequence)
                return bytes
            case .unknown: return nil
            }
        }
    }

    /// Sends one Opus packet once connected (audio needs no keyframe).
    func deliver(audio packets: [[UInt8]]) {
        perform(state.withLock { $0.audio(packets, transmitted: transmitted.load(ordering: .relaxed)) })
    }

    /// The packets not resent within `interval` before `now` (`WHEPViewerState.dueForResend`).
    func dueForResend(
        _ packets: [[UInt8]],
        kind: MediaKind,
        now: ContinuousClock.Instant,
        interval: Duration
    ) -> [[UInt8]] {
        state.withLock { $0.dueForResend(packets, kind: kind, now: now, interval: interval) }
    }

    /// Resends NACKed packets within the queue bound (`WHEPViewerState.retransmit`).
    func retransmit(_ packets: [[UInt8]], kind: MediaKind) {
        perform(
            state.withLock { $0.retransmit(packets, kind: kind, transmitted: transmitted.load(ordering: .relaxed)) }
        )
    }

    /// RFC 4588 §4: each packet on the RTX stream (OSN in front, RTX payload type and SSRC), numbered from
    /// `sequence` on; history bytes that do not parse are skipped.
    static func retransmissions(
        _ packets: [[UInt8]],
        on rtx: RetransmissionStream,
        sequence: inout UInt16
    ) -> [[UInt8]] {
        packets.compactMap { bytes -> [UInt8]? in
            guard let packet = try? RTPPacket(parsing: bytes) else { return nil }
            defer { sequence &+= 1 }
            let wrapped = packet.wrappedForRetransmission(
                payloadType: rtx.payloadType,
                ssrc: rtx.ssrc,
                sequenceNumber: sequence
            )
            return wrapped.serialized()
        }
    }

    /// Sends an RTCP compound packet (sender reports) once connected.
    func sendRTCP(_ bytes: [UInt8]) {
        guard state.withLock({ $0.isSending }) else { return }
        session.sendRTCP(bytes)
    }

    /// Carries out what the state returned (`transmitting` false: its packets were handed over already).
    private func perform(_ actions: [WHEPViewerState<RungLink>.Action], transmitting: Bool = true) {
        for action in actions {
            switch action {
            case .transmit(let packets, let payloadType):
                if transmitting { transmit(packets, payloadType: payloadType) }
            case .leaveRung(let rung): rung.leave(self, rung.feed)
            case .needsKeyframe: continue
            }
        }
    }

    /// Stamps the payload type and hands the packets to the transport, which counts them off when it is done.
    private func transmit(_ packets: [[UInt8]], payloadType: UInt8) {
        let n = packets.count
        let stamped = packets.map { packet -> [UInt8] in
            var bytes = packet
            // RFC 3550 §5.1: the second byte is M (top bit) and PT.
            if bytes.count > 1 { bytes[1] = bytes[1] & 0x80 | payloadType & 0x7F }
            return bytes
        }
        session.sendRTP(stamped) { [self] in self.transmitted.add(n, ordering: .relaxed) }
    }
}
