import MediaCore
import Synchronization
import WebRTCTransport
import WebRTCWire

/// One WHEP viewer: its transport session, its payload types, where it is in joining, and a bounded queue of packets
/// waiting to be encrypted for it. A slow viewer loses its own packets, never the stream's or another viewer's.
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
    /// Payload type the viewer's offer gave Opus (nil: it receives no audio).
    let audioPayloadType: UInt8?
    /// Where video retransmissions go when the viewer negotiated RTX (nil: the original packet again).
    let videoRetransmission: RetransmissionStream?
    /// The viewer's RTX sequence numbers (RFC 4588 §4: the RTX stream has its own, random start).
    private let rtxSequence: Mutex<UInt16>
    let queueLimit: Int
    /// Which feed it watches, for reports.
    let videoSource: String
    /// Lower ladder rungs it may step down to when its bandwidth cannot take its own feed, highest first.
    let lowerRenditions: [WHEPVideoSource]
    private let inFlight = Atomic<Int>(0)
    /// When each packet (kind << 16 | sequence number) was last resent, and this second's resend budget.
    private let lastResent = Mutex(ResendLimit())

    struct ResendLimit: Sendable {
        var at: [UInt32: ContinuousClock.Instant] = [:]
        /// The first sequence number of the last keyframe it was sent: a video packet before it is no use to resend.
        var keyframeSequence: UInt16?
        var windowStart = ContinuousClock.now
        var sentAtWindowStart = 0
        var budget = 25
    }
    private let state = Mutex<(phase: Phase, counters: Counters)>((.connecting, Counters()))
    /// Set while a viewer joins on the join rung or takes a lower rendition, and kept after (its NACKs map through it).
    let join = Mutex<JoinBridge?>(nil)
    /// When its receiver's estimate moves it to a lower rendition and back.
    let adaptation = Mutex(WHEPBandwidthAdaptation())

    /// A viewer's join on the join rung, or its stay on a lower rendition: its timeline, what the rung sent it, and
    /// the rung's feed.
    struct JoinBridge: Sendable {
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
        /// The rung feed it takes frames from until the switch; nil after.
        var rung: WHEPStreamFeed?
        /// Called once when it leaves the rung (the service lets an unwatched rung stop).
        var leave: (@Sendable (WHEPViewer, WHEPStreamFeed) -> Void)?
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
        self.audioPayloadType = audioPayloadType
        self.videoRetransmission = videoRetransmission
        rtxSequence = Mutex(UInt16.random(in: 0...UInt16.max))
        self.queueLimit = max(1, queueLimit)
        self.videoSource = videoSource
        self.lowerRenditions = lowerRenditions
    }

    var phase: Phase { state.withLock { $0.phase } }
    var counters: Counters { state.withLock { $0.counters } }

    /// DTLS finished: audio may flow, video from the next keyframe.
    func connected() {
        state.withLock { if $0.phase == .connecting { $0.phase = .waitingForKeyframe } }
    }

    /// The session ended.
    func closed() { state.withLock { $0.phase = .closed } }

    /// Joins on `rung` until its own feed's next keyframe (`WHEPJoinSwitch`); `leave` runs once it is off it.
    func joinOnRung(
        _ rung: WHEPStreamFeed,
        timeline: WHEPJoinSwitch,
        ssrc: UInt32,
        historyCapacity: Int,
        leave: @escaping @Sendable (WHEPViewer, WHEPStreamFeed) -> Void
    ) {
        join.withLock { j in
            j = JoinBridge(
                timeline: timeline,
                ssrc: ssrc,
                history: RTPSendHistory(capacity: historyCapacity),
                rung: rung,
                leave: leave
            )
        }
    }

    /// The rung whose frames it shows now (keyframe requests go there); nil while on its own feed.
    var joiningRung: WHEPStreamFeed? {
        join.withLock { j in
            guard let j, j.timeline.phase == .bridging || j.timeline.phase == .onRung else { return nil }
            return j.rung
        }
    }

    /// True once a bridged viewer moved onto its own feed.
    var switchedToOwnFeed: Bool { join.withLock { $0?.timeline.phase == .switched } }

    /// Where its timeline is (nil: it never left its own feed's numbering).
    var timelinePhase: WHEPJoinSwitch.Phase? { join.withLock { $0?.timeline.phase } }

    /// It joined on the join rung, and is still on it.
    var onJoinRung: Bool {
        join.withLock { $0.map { $0.joined && !$0.recordsAll && $0.timeline.phase == .bridging } ?? false }
    }

    /// The lower rendition it takes or is moving onto (nil: its own feed, or the join rung while joining).
    var lowerRendition: WHEPStreamFeed? { join.withLock { j in j?.recordsAll == true ? j?.rung : nil } }

    /// Which rendition it gets now (`passthrough`, `rung 360p`…), for reports: the lower rendition while it takes
    /// one, else its own (a join on the join rung shows in `onJoinRung`, not here).
    var currentVideoSource: String {
        join.withLock { j in
            guard let j, j.recordsAll, let rung = j.rung, j.timeline.phase == .onRung || j.timeline.phase == .bridging
            else { return videoSource }
            return "\(rung.videoSource)"
        }
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
        join.withLock { j in
            var bridge =
                j
                ?? JoinBridge(
                    timeline: WHEPJoinSwitch(
                        onOwnFeedAt: ownPosition.nextSequence,
                        lastTimestamp: ownPosition.lastTimestamp,
                        historyPackets: historyCapacity
                    ),
                    ssrc: ssrc,
                    joined: false
                )
            guard bridge.rung == nil, bridge.timeline.stepDown(timestampShift: timestampShift) else { return false }
            bridge.rung = rung
            bridge.leave = leave
            bridge.recordsAll = true
            if bridge.history == nil { bridge.history = RTPSendHistory(capacity: historyCapacity) }
            j = bridge
            return true
        }
    }

    /// Its lower rendition stopped: back onto its own feed (`WHEPJoinSwitch.rungEnded`); false when it was not on one.
    func lowerRenditionEnded() -> Bool {
        let stepped = join.withLock { j -> Bool in
            guard j?.recordsAll == true, j?.rung != nil else { return false }
            j?.timeline.rungEnded()
            return true
        }
        if stepped { leaveRung() }
        return stepped
    }

    /// Starts the step back up onto its own feed at that feed's next keyframe (a step down still waiting for the lower
    /// rendition's keyframe is called off, and the rung left at once). False when it is on its own feed.
    func stepUp() -> Bool {
        let (moved, calledOff) = join.withLock { j -> (Bool, Bool) in
            guard j?.recordsAll == true, let phase = j?.timeline.phase, j?.timeline.stepUp() == true else {
                return (false, false)
            }
            return (true, phase == .steppingDown)
        }
        if calledOff { leaveRung() }
        return moved
    }

    /// Stops taking the rung (at the switch, or when the session ends while bridging).
    func leaveRung() {
        let left = join.withLock { j -> (WHEPStreamFeed, @Sendable (WHEPViewer, WHEPStreamFeed) -> Void)? in
            guard let rung = j?.rung, let leave = j?.leave else { return nil }
            j?.rung = nil
            j?.leave = nil
            return (rung, leave)
        }
        if let (rung, leave) = left { leave(self, rung) }
    }

    /// Updates counters under the lock.
    func count(_ change: (inout Counters) -> Void) { state.withLock { change(&$0.counters) } }

    /// Sends one video access unit's packets when the viewer is in sync (or it is a keyframe to join on); true when
    /// the viewer needs a keyframe (it waits for one, or just dropped one for a full queue).
    /// `origin` says which feed sent it, for a viewer joining on the rung.
    func deliver(video packets: [[UInt8]], keyframe: Bool, origin: WHEPJoinSwitch.Origin = .own) -> Bool {
        guard let payloadType = videoPayloadType else { return false }
        let admitted = state.withLock { s -> Bool in
            if s.phase == .waitingForKeyframe, keyframe { s.phase = .playing }
            return s.phase == .playing
        }
        guard admitted else { return phase == .waitingForKeyframe }
        var sent: (enqueued: Bool, packets: Int, rungFrames: Int)
        switch onTimeline(packets, keyframe: keyframe, origin: origin, payloadType: payloadType) {
        case .notJoining: sent = (enqueue(packets, payloadType: payloadType, keyframe: keyframe), packets.count, 0)
        case .dropped: return false
        case .missedKeyframe: return true
        case .sent(let enqueued, let count, let rungFrames, let switched, let entered, let stepped):
            if switched { leaveRung() }
            if switched, stepped { self.count { $0.stepsUp += 1 } }
            if entered { self.count { $0.stepsDown += 1 } }
            sent = (enqueued, count, rungFrames)
        }
        if sent.rungFrames > 0 { count { $0.framesFromRung += sent.rungFrames } }
        if sent.enqueued {
            count { $0.videoPacketsSent += sent.packets }
            return false
        }
        // A lost piece of a frame breaks every frame after it until the next keyframe: wait for one.
        state.withLock { s in
            s.counters.videoPacketsDropped += sent.packets
            if s.phase == .playing { s.phase = .waitingForKeyframe }
        }
        return true
    }

    /// What became of a frame for a viewer that may be joining on the rung.
    private enum TimelineOutcome {
        /// The viewer never joined on the rung: its packets go out as they are.
        case notJoining
        /// Not for this viewer, or held back (`WHEPJoinSwitch.Action.drop`, `.hold`).
        case dropped
        /// Its own feed's keyframe came too late to take over: that feed should make another.
        case missedKeyframe
        /// Put on its timeline and handed to the transport (`enqueued` false: its queue refused some): `packets`
        /// packets, `rungFrames` of the frames from the join rung; `switched` when this frame moved it onto its own
        /// feed, `entered` onto a lower rendition; `stepped` when the bridge is a step down's.
        case sent(enqueued: Bool, packets: Int, rungFrames: Int, switched: Bool, entered: Bool, stepped: Bool)
    }

    /// Puts a bridged viewer's frame (and the held rung frames it releases) on its timeline and enqueues them under
    /// the same lock, so the two feeds' frames leave in the order their sequence numbers were given.
    private func onTimeline(
        _ packets: [[UInt8]],
        keyframe: Bool,
        origin: WHEPJoinSwitch.Origin,
        payloadType: UInt8
    ) -> TimelineOutcome {
        guard let first = packets.first, first.count >= 12, let firstSequence = WHEPJoinSwitch.sequence(of: first)
        else {
            return .notJoining
        }
        return join.withLock { j -> TimelineOutcome in
            guard var bridge = j else { return .notJoining }
            defer { j = bridge }
            let frame = WHEPJoinSwitch.Frame(
                origin: origin,
                keyframe: keyframe,
                firstSequence: firstSequence,
                packets: packets.count,
                timestamp: first[4...7].reduce(0) { $0 << 8 | UInt32($1) }
            )
            var switched = false
            var entered = false
            var enqueued = true
            var sentPackets = 0
            var rungFrames = 0
            // Numbers a frame's packets onto the viewer's timeline and hands them to the transport.
            func put(_ frame: [[UInt8]], keyframe: Bool, firstSequence: UInt16, timestamp: UInt32, fromRung: Bool) {
                var rewritten = frame
                for i in rewritten.indices {
                    let sequence = firstSequence &+ UInt16(truncatingIfNeeded: i)
                    WHEPJoinSwitch.rewrite(&rewritten[i], sequence: sequence, timestamp: timestamp, ssrc: bridge.ssrc)
                    if fromRung || bridge.recordsAll {
                        bridge.history?.store(sequenceNumber: sequence, bytes: rewritten[i])
                    }
                }
                enqueued = enqueue(rewritten, payloadType: payloadType, keyframe: keyframe) && enqueued
                sentPackets += rewritten.count
                if fromRung, !bridge.recordsAll { rungFrames += 1 }
            }
            for action in bridge.timeline.take(frame) {
                switch action {
                case .drop: return .dropped
                case .missedKeyframe: return .missedKeyframe
                case .hold: bridge.held.append((packets, keyframe))
                case .discardHeld: bridge.held.removeFirst()
                case .release(let firstSequence, let timestamp):
                    let frame = bridge.held.removeFirst()
                    put(
                        frame.packets,
                        keyframe: frame.keyframe,
                        firstSequence: firstSequence,
                        timestamp: timestamp,
                        fromRung: true
                    )
                case .leaveRung: switched = true
                case .enterRung: entered = true
                case .send(let firstSequence, let timestamp):
                    put(
                        packets,
                        keyframe: keyframe,
                        firstSequence: firstSequence,
                        timestamp: timestamp,
                        fromRung: origin == .rung
                    )
                }
            }
            if bridge.timeline.phase == .switched, bridge.timeline.rungPackets == 0, !bridge.recordsAll {
                bridge.history = nil
            }
            guard sentPackets > 0 else { return .dropped }
            return .sent(
                enqueued: enqueued,
                packets: sentPackets,
                rungFrames: rungFrames,
                switched: switched,
                entered: entered,
                stepped: bridge.recordsAll
            )
        }
    }

    /// The packets a NACK names as this viewer was sent them: `feedHistory` answers for sequence numbers of its feed
    /// (a bridged viewer's are mapped, and answered from its own history while they came from the rung).
    func nacked(_ sequenceNumbers: [UInt16], feedHistory: ([UInt16]) -> [[UInt8]]) -> [[UInt8]] {
        let mapped = join.withLock { j -> [[UInt8]]? in
            guard let bridge = j else { return nil }
            return sequenceNumbers.compactMap { sequence -> [UInt8]? in
                if bridge.recordsAll, let packet = bridge.history?.packet(sequence) { return packet }
                switch bridge.timeline.origin(ofSent: sequence) {
                case .rung: return bridge.history?.packet(sequence)
                case .own(let original):
                    guard var bytes = feedHistory([original]).first, bytes.count >= 12 else { return nil }
                    WHEPJoinSwitch.renumber(&bytes, sequence: sequence)
                    return bytes
                case nil: return nil
                }
            }
        }
        return mapped ?? feedHistory(sequenceNumbers)
    }

    /// Sends one Opus packet once connected (audio needs no keyframe).
    func deliver(audio packets: [[UInt8]]) {
        guard let payloadType = audioPayloadType else { return }
        let phase = phase
        guard phase == .waitingForKeyframe || phase == .playing else { return }
        let sent = enqueue(packets, payloadType: payloadType)
        count { c in
            if sent { c.audioPacketsSent += packets.count } else { c.audioPacketsDropped += packets.count }
        }
    }

    /// The packets not resent within `interval` before `now`, within a budget of a quarter of the packets it was sent
    /// the second before (at least 25 a second); each is stamped resent now. A receiver NACKs a missing packet again
    /// every round trip until the repair lands, and on a congested link each extra copy only deepens the queue that
    /// lost it (a 1.2 Mb/s bottleneck in e2e: five resends per packet sent before this). Video sent before the last
    /// keyframe is never resent: the decoder starts again there (after a step down, old-rendition NACKs spent the
    /// budget the new rendition's losses needed).
    func dueForResend(
        _ packets: [[UInt8]],
        kind: MediaKind,
        now: ContinuousClock.Instant,
        interval: Duration
    )
        -> [[UInt8]]
    {
        let c = counters
        let sent = c.videoPacketsSent + c.audioPacketsSent
        let due = lastResent.withLock { r -> [[UInt8]] in
            if now - r.windowStart >= .seconds(1) {
                r.budget = max(25, (sent - r.sentAtWindowStart) / 4)
                r.windowStart = now
                r.sentAtWindowStart = sent
            }
            if r.at.count > 4_096 { r.at = r.at.filter { now - $0.value < interval } }
            return packets.filter { bytes in
                guard let sequence = WHEPJoinSwitch.sequence(of: bytes), r.budget > 0 else { return false }
                if kind == .video, let keyframe = r.keyframeSequence, Int16(bitPattern: sequence &- keyframe) < 0 {
                    return false
                }
                let key = UInt32(kind == .video ? 1 : 2) << 16 | UInt32(sequence)
                if let at = r.at[key], now - at < interval { return false }
                r.at[key] = now
                r.budget -= 1
                return true
            }
        }
        if due.count < packets.count { count { $0.resendsSkipped += packets.count - due.count } }
        return due
    }

    /// Resends NACKed packets within the queue bound: on the RTX stream when negotiated (RFC 4588 §4: the OSN in
    /// front, RTX payload type, SSRC and sequence), else the same packets again (RFC 4585 §6.2.1).
    func retransmit(_ packets: [[UInt8]], kind: MediaKind) {
        guard let payloadType = kind == .video ? videoPayloadType : audioPayloadType, !packets.isEmpty else { return }
        guard kind == .video, let rtx = videoRetransmission else {
            if enqueue(packets, payloadType: payloadType) { count { $0.retransmittedPackets += packets.count } }
            return
        }
        let wrapped = rtxSequence.withLock { next in Self.retransmissions(packets, on: rtx, sequence: &next) }
        guard enqueue(wrapped, payloadType: rtx.payloadType) else { return }
        count { c in
            c.retransmittedPackets += wrapped.count
            c.retransmittedOnRTX += wrapped.count
        }
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
        let phase = phase
        guard phase == .waitingForKeyframe || phase == .playing else { return }
        session.sendRTCP(bytes)
    }

    /// Stamps our payload type and hands the packets to the transport unless the viewer's queue is full; a keyframe's
    /// first sequence number (as the viewer gets it) bounds what a NACK may have resent (`dueForResend`).
    private func enqueue(_ packets: [[UInt8]], payloadType: UInt8, keyframe: Bool = false) -> Bool {
        let n = packets.count
        let before = inFlight.add(n, ordering: .relaxed).oldValue
        guard before + n <= queueLimit else {
            inFlight.subtract(n, ordering: .relaxed)
            return false
        }
        let stamped = packets.map { packet -> [UInt8] in
            var bytes = packet
            // RFC 3550 §5.1: the second byte is M (top bit) and PT.
            if bytes.count > 1 { bytes[1] = bytes[1] & 0x80 | payloadType & 0x7F }
            return bytes
        }
        session.sendRTP(stamped) { [self] in self.inFlight.subtract(n, ordering: .relaxed) }
        if keyframe, let first = packets.first.flatMap(WHEPJoinSwitch.sequence(of:)) {
            lastResent.withLock { $0.keyframeSequence = first }
        }
        return true
    }
}
