import MediaCore
import WebRTCWire

/// Everything about one WHEP viewer that changes: its phase, its counters, its place in the transport's queue, its
/// join or step onto a rung (`WHEPJoinSwitch`), its resend budget, its RTX numbering and its bandwidth adaptation.
/// A value: each event in gives the actions to carry out, so `WHEPViewer` holds it under one lock and its life is
/// tested without a network. `Rung` is what the viewer keeps of the rung it takes (`WHEPViewer.RungLink`).
struct WHEPViewerState<Rung: Sendable>: Sendable {
    /// What the viewer does after an event, in order.
    enum Action: Sendable {
        /// Hand the packets to the transport, each stamped with `payloadType` (RFC 3550 §5.1).
        case transmit([[UInt8]], payloadType: UInt8)
        /// It took its last frame from `Rung`: tell the rung's owner (the service may stop an unwatched rung).
        case leaveRung(Rung)
        /// Its video needs a keyframe (it waits for one, dropped one for a full queue, or its own feed's
        /// keyframe came too late to take over from the rung): the feed that sent the frame asks once for all.
        case needsKeyframe
    }

    /// A viewer's join on the join rung, or its stay on a lower rendition: its timeline, what the rung sent it, and
    /// the rung.
    struct Bridge: Sendable {
        var timeline: WHEPJoinSwitch
        /// Its own feed's SSRC: the viewer's one video SSRC.
        let ssrc: UInt32
        /// Made by a join on the join rung (not by a step down).
        var joined = true
        /// Every packet sent goes into `history`, not only the rung's (a step down mixes the feeds' numbers).
        var recordsAll = false
        /// The packets of the rung frames the timeline holds back, oldest first, as the rung numbered them.
        var held: [(packets: [[UInt8]], keyframe: Bool)] = []
        /// Rung packets as this viewer got them, for its NACKs; freed once they are too old to be asked for.
        var history: RTPSendHistory?
        /// The rung it takes frames from until the switch; nil after (`leaveRung` went out).
        var rung: Rung?
    }

    /// When each packet (kind << 16 | sequence number) was last resent, and this second's resend budget.
    struct ResendLimit: Sendable {
        var at: [UInt32: ContinuousClock.Instant] = [:]
        /// The first sequence number of the last keyframe it was sent: a video packet before it is no use to resend.
        var keyframeSequence: UInt16?
        var windowStart: ContinuousClock.Instant
        var sentAtWindowStart = 0
        var budget = 25
    }

    /// Payload type the viewer's offer gave H.264 (nil: it receives no video).
    let videoPayloadType: UInt8?
    /// Payload type the viewer's offer gave Opus (nil: it receives no audio).
    let audioPayloadType: UInt8?
    /// Where video retransmissions go when the viewer negotiated RTX (nil: the original packet again).
    let videoRetransmission: RetransmissionStream?
    /// Packets the transport may hold for it at once; more are dropped (a slow viewer loses only its own).
    let queueLimit: Int
    var phase = WHEPViewer.Phase.connecting
    /// Counted here and by the service as feedback arrives.
    var counters = WHEPViewer.Counters()
    /// Packets ever handed to the transport; less those it finished (`transmitted`), what its queue holds.
    private(set) var handedOver = 0
    /// The viewer's next RTX sequence number (RFC 4588 §4: the RTX stream has its own, random start).
    var rtxSequence: UInt16
    var resends: ResendLimit
    var bridge: Bridge?
    /// When its receiver's estimate moves it to a lower rendition and back.
    var adaptation = WHEPBandwidthAdaptation()

    init(
        videoPayloadType: UInt8?,
        audioPayloadType: UInt8?,
        videoRetransmission: RetransmissionStream? = nil,
        queueLimit: Int,
        rtxSequence: UInt16,
        now: ContinuousClock.Instant = .now
    ) {
        self.videoPayloadType = videoPayloadType
        self.audioPayloadType = audioPayloadType
        self.videoRetransmission = videoRetransmission
        self.queueLimit = max(1, queueLimit)
        self.rtxSequence = rtxSequence
        resends = ResendLimit(windowStart: now)
    }

    /// True once connected and until closed: media and reports may go out.
    var isSending: Bool { phase == .waitingForKeyframe || phase == .playing }

    /// DTLS finished: audio may flow, video from the next keyframe.
    mutating func connected() {
        if phase == .connecting { phase = .waitingForKeyframe }
    }

    /// The session ended.
    mutating func closed() { phase = .closed }

    /// Joins on `rung` until its own feed's next keyframe (`timeline`), numbering onto video SSRC `ssrc`.
    mutating func joinOnRung(_ rung: Rung, timeline: WHEPJoinSwitch, ssrc: UInt32, historyCapacity: Int) {
        bridge = Bridge(timeline: timeline, ssrc: ssrc, history: RTPSendHistory(capacity: historyCapacity), rung: rung)
    }

    /// Starts a step down onto `rung`, a lower rendition, at its next keyframe (`WHEPJoinSwitch.stepDown`). False
    /// while it joins or takes a rung already.
    mutating func stepDown(
        onto rung: Rung,
        timestampShift: UInt32,
        ssrc: UInt32,
        ownPosition: (nextSequence: UInt16, lastTimestamp: UInt32?),
        historyCapacity: Int
    ) -> Bool {
        var stepping =
            bridge
            ?? Bridge(
                timeline: WHEPJoinSwitch(
                    onOwnFeedAt: ownPosition.nextSequence,
                    lastTimestamp: ownPosition.lastTimestamp,
                    historyPackets: historyCapacity
                ),
                ssrc: ssrc,
                joined: false
            )
        guard stepping.rung == nil, stepping.timeline.stepDown(timestampShift: timestampShift) else { return false }
        stepping.rung = rung
        stepping.recordsAll = true
        if stepping.history == nil { stepping.history = RTPSendHistory(capacity: historyCapacity) }
        bridge = stepping
        return true
    }

    /// Its lower rendition stopped: back onto its own feed (`WHEPJoinSwitch.rungEnded`), off the rung at once. Nil
    /// when it was not on one.
    mutating func lowerRenditionEnded() -> [Action]? {
        guard bridge?.recordsAll == true, bridge?.rung != nil else { return nil }
        bridge?.timeline.rungEnded()
        return leaveRung()
    }

    /// Starts the step back up onto its own feed at that feed's next keyframe (a step down still waiting for the lower
    /// rendition's keyframe is called off, and the rung left at once). Nil when it is on its own feed.
    mutating func stepUp() -> [Action]? {
        guard bridge?.recordsAll == true, let phase = bridge?.timeline.phase, bridge?.timeline.stepUp() == true else {
            return nil
        }
        return phase == .steppingDown ? leaveRung() : []
    }

    /// Stops taking the rung (at the switch, or when the session ends while bridging); once only.
    mutating func leaveRung() -> [Action] {
        guard let rung = bridge?.rung else { return [] }
        bridge?.rung = nil
        return [.leaveRung(rung)]
    }

    /// The rung whose frames it shows now (keyframe requests go there); nil while on its own feed.
    var joiningRung: Rung? {
        guard let bridge, bridge.timeline.phase == .bridging || bridge.timeline.phase == .onRung else { return nil }
        return bridge.rung
    }

    /// The lower rendition it takes or is moving onto (nil: its own feed, or the join rung while joining).
    var lowerRendition: Rung? { bridge?.recordsAll == true ? bridge?.rung : nil }

    /// The lower rendition whose video it gets now, for reports (nil: its own feed's, or the join rung's).
    var showingLowerRendition: Rung? {
        guard let bridge, bridge.recordsAll, bridge.timeline.phase == .onRung || bridge.timeline.phase == .bridging
        else { return nil }
        return bridge.rung
    }

    /// Where its timeline is (nil: it never left its own feed's numbering).
    var timelinePhase: WHEPJoinSwitch.Phase? { bridge?.timeline.phase }

    /// It joined on the join rung (whether or not it has left it since).
    var joinedOnJoinRung: Bool { bridge?.joined == true }

    /// It joined on the join rung, and is still on it.
    var onJoinRung: Bool {
        bridge.map { $0.joined && !$0.recordsAll && $0.timeline.phase == .bridging } ?? false
    }

    /// Opus packets once connected (audio needs no keyframe); the transport has finished `transmitted` packets.
    mutating func audio(_ packets: [[UInt8]], transmitted: Int) -> [Action] {
        guard let payloadType = audioPayloadType, isSending else { return [] }
        guard admit(packets.count, transmitted: transmitted) else {
            counters.audioPacketsDropped += packets.count
            return []
        }
        counters.audioPacketsSent += packets.count
        return [.transmit(packets, payloadType: payloadType)]
    }

    /// True (and counted as handed over) when `count` more packets fit the queue the transport still holds.
    mutating func admit(_ count: Int, transmitted: Int) -> Bool {
        guard handedOver - transmitted + count <= queueLimit else { return false }
        handedOver += count
        return true
    }
}

extension WHEPViewerState.Action: Equatable where Rung: Equatable {}
