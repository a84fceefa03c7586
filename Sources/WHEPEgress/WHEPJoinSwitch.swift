/// A viewer that joins on the join rung: the rung's IDR reaches it at once (an RTMP source cannot be asked for a
/// keyframe; a WHIP publisher or the WebRTC rung was asked inside its window), and at its own feed's next keyframe it
/// moves onto that feed for good. The viewer sees one stream throughout (RFC 3550 §5.1: one SSRC, sequence numbers
/// that step by one, one RTP clock):
///
/// - its RTP clock is its own feed's; the rung's timestamps move by `timestampShift` (both feeds stamp the same
///   source presentation times, each from its own random offset);
/// - while on the rung its sequence numbers are its own, counted on from a start of its own; from the switch on
///   they are its feed's moved by a fixed shift;
/// - a NACK is answered from what this viewer was sent (`origin(ofSent:)`).
///
/// A passthrough's frames arrive before the rung's encodes of them, so its keyframe lies ahead of what the rung sent.
/// The WebRTC rung's IDR of a picture comes out level with or behind the join rung's encode of the same picture (two
/// encodes of it, the IDR the slower), so for such a feed the rung's frames are held back `holdFrames` frames: the
/// feed's keyframe then finds the rung's frame of its picture still held, and takes its place.
///
/// The same timeline carries a viewer whose bandwidth cannot take its own feed down onto a lower rendition (the rung)
/// at that rendition's next keyframe, and back up at its own feed's next keyframe (`WHEPBandwidthAdaptation`); its RTP
/// clock stays its own feed's throughout, so the own feed's sender reports keep lip sync.
///
/// A value: each frame in gives the actions to carry out, so the timeline is tested without a network.
struct WHEPJoinSwitch: Sendable, Equatable {
    /// Which feed a frame came from.
    enum Origin: Sendable, Equatable {
        /// The join rung.
        case rung
        /// The viewer's own feed (the passthrough, or the WebRTC rung).
        case own
    }

    /// Where the viewer's video comes from.
    enum Phase: Sendable, Equatable {
        /// From the rung, until its own feed's next keyframe.
        case bridging
        /// From its own feed; the rung's frames are no longer taken.
        case switched
        /// From its own feed, until the lower rendition's next keyframe (its bandwidth cannot take its own feed).
        case steppingDown
        /// Its own feed's keyframe came: nothing is sent until the lower rendition's encode of that picture, its IDR
        /// (the ladder's IDRs fall on the source's keyframes, and its encodes come out behind the source's frames).
        case awaitingRung
        /// From the lower rendition, until it steps back up.
        case onRung
    }

    /// One access unit's packets as their feed numbered them (all of a frame's packets share its timestamp).
    struct Frame: Sendable, Equatable {
        var origin: Origin
        var keyframe: Bool
        var firstSequence: UInt16
        var packets: Int
        var timestamp: UInt32
    }

    /// What to do with one frame, in order.
    enum Action: Sendable, Equatable {
        /// Send its packets on the viewer's SSRC numbered from `firstSequence` on, stamped `timestamp`.
        case send(firstSequence: UInt16, timestamp: UInt32)
        /// Keep this rung frame's packets back, after those already held.
        case hold
        /// Send the oldest held rung frame, numbered and stamped so.
        case release(firstSequence: UInt16, timestamp: UInt32)
        /// Throw the oldest held rung frame away (its picture comes from the viewer's own feed).
        case discardHeld
        /// Not for this viewer (the other feed's, or its own feed's before its keyframe).
        case drop
        /// Its own feed's keyframe came too late to take over (RTP time would step back): ask that feed for another.
        case missedKeyframe
        /// The viewer moved onto its own feed with this frame: stop feeding it the rung (and the rung may stop).
        case leaveRung
        /// The viewer moved onto the lower rendition with this frame (its own feed's frames are dropped from now on).
        case enterRung
    }

    /// Where a sequence number the viewer NACKs was sent from.
    enum SentOrigin: Sendable, Equatable {
        /// A rung packet as this viewer got it: from the viewer's own history.
        case rung
        /// A packet of its own feed: this sequence number in that feed's history.
        case own(UInt16)
    }

    private(set) var phase = Phase.bridging
    /// Added to a rung timestamp to put it on the viewer's own feed's clock.
    private(set) var timestampShift: UInt32
    /// The viewer's next sequence number.
    private(set) var nextSequence: UInt16
    /// The first sequence number the viewer was sent, and how many came from the rung.
    let firstSequence: UInt16
    private(set) var rungPackets = 0
    /// Added to its own feed's sequence numbers once switched.
    private(set) var sequenceShift: UInt16 = 0
    /// The viewer's sequence number of the first packet from its own feed.
    private(set) var switchSequence: UInt16 = 0
    /// The newest timestamp sent (the own feed's keyframe must not step back behind the rung's last frame sent).
    private(set) var lastTimestamp: UInt32?
    /// Frames the viewer got from the rung.
    private(set) var rungFrames = 0
    /// Rung frames held back at most while bridging (0: each goes out as it comes).
    let holdFrames: Int
    /// The held rung frames, oldest first, their timestamps already on the viewer's clock.
    private(set) var held: [Frame] = []

    /// A viewer starting at sequence number `firstSequence`, rung timestamps moved by `timestampShift`, rung frames
    /// held back `holdFrames` frames.
    init(firstSequence: UInt16, timestampShift: UInt32, holdFrames: Int = 0) {
        self.firstSequence = firstSequence
        nextSequence = firstSequence
        self.timestampShift = timestampShift
        self.holdFrames = max(0, holdFrames)
    }

    /// A viewer that never joined on the rung, on its own feed whose next sequence number is `nextSequence` and whose
    /// last frame was stamped `lastTimestamp`: its numbers stay the feed's, and a NACK for any of the `historyPackets`
    /// before it maps straight back.
    init(onOwnFeedAt nextSequence: UInt16, lastTimestamp: UInt32? = nil, historyPackets: Int) {
        self.init(firstSequence: nextSequence, timestampShift: 0)
        phase = .switched
        self.lastTimestamp = lastTimestamp
        switchSequence = nextSequence &- UInt16(clamping: min(max(0, historyPackets), 0x7FFF))
    }

    /// Starts a step down onto a lower rendition whose timestamps move by `timestampShift`; false unless the viewer
    /// is settled on its own feed.
    mutating func stepDown(timestampShift: UInt32) -> Bool {
        guard phase == .switched else { return false }
        self.timestampShift = timestampShift
        phase = .steppingDown
        return true
    }

    /// The lower rendition stopped (shed, or its stream ended): back onto its own feed, at once if it never left it,
    /// else at that feed's next keyframe.
    mutating func rungEnded() {
        switch phase {
        case .steppingDown: phase = .switched
        case .awaitingRung, .onRung: phase = .bridging
        case .bridging, .switched: break
        }
    }

    /// Starts the step back up onto its own feed (at that feed's next keyframe); false unless on the lower rendition.
    /// A step down still waiting for the lower rendition's keyframe is called off instead (not once its own feed's
    /// frames stopped for the lower rendition's IDR).
    mutating func stepUp() -> Bool {
        switch phase {
        case .onRung:
            phase = .bridging
            return true
        case .steppingDown:
            phase = .switched
            return true
        case .awaitingRung:
            // Its own feed's keyframe was not sent: only the lower rendition's IDR can go on from here.
            return false
        case .bridging, .switched:
            return false
        }
    }

    /// The actions for one frame from either feed.
    mutating func take(_ frame: Frame) -> [Action] {
        switch (phase, frame.origin) {
        case (.bridging, .rung):
            var shifted = frame
            shifted.timestamp = frame.timestamp &+ timestampShift
            guard holdFrames > 0 else { return [send(shifted, fromRung: true)] }
            held.append(shifted)
            var actions = [Action.hold]
            while held.count > holdFrames { actions.append(release(held.removeFirst())) }
            return actions
        case (.bridging, .own):
            guard frame.keyframe else { return [.drop] }
            // Held frames of pictures before this keyframe go out first; those of its picture or later make way.
            let newestBefore = held.last { Self.isAfter(frame.timestamp, $0.timestamp) }
            // Switch only where RTP time moves on from what was sent (held frames included); else wait for the next.
            if let newest = newestBefore?.timestamp ?? lastTimestamp, !Self.isAfter(frame.timestamp, newest) {
                return [.missedKeyframe]
            }
            var actions: [Action] = []
            for h in held {
                actions.append(Self.isAfter(frame.timestamp, h.timestamp) ? release(h) : .discardHeld)
            }
            held = []
            phase = .switched
            sequenceShift = nextSequence &- frame.firstSequence
            switchSequence = nextSequence
            return actions + [.leaveRung, send(frame, fromRung: false)]
        case (.switched, .rung), (.onRung, .own):
            return [.drop]
        case (.steppingDown, .own) where frame.keyframe:
            phase = .awaitingRung
            return [.drop]
        case (.awaitingRung, .own):
            // The lower rendition had no IDR of that picture (its keyframes are not the source's): go on from here.
            guard frame.keyframe else { return [.drop] }
            phase = .steppingDown
            sequenceShift = nextSequence &- frame.firstSequence
            switchSequence = nextSequence
            return [send(frame, fromRung: false)]
        case (.steppingDown, .rung), (.awaitingRung, .rung):
            var shifted = frame
            shifted.timestamp = frame.timestamp &+ timestampShift
            // Only a keyframe ahead of what was sent takes over (RTP time never steps back); else wait for the next.
            guard frame.keyframe, lastTimestamp.map({ Self.isAfter(shifted.timestamp, $0) }) ?? true else {
                return [.drop]
            }
            phase = .onRung
            return [.enterRung, send(shifted, fromRung: true)]
        case (.onRung, .rung):
            var shifted = frame
            shifted.timestamp = frame.timestamp &+ timestampShift
            return [send(shifted, fromRung: true)]
        case (.switched, .own), (.steppingDown, .own):
            nextSequence = frame.firstSequence &+ sequenceShift
            // Half the sequence space later the rung's packets are long out of every history: forget them, so the
            // numbers they had, when they come round again, are the own feed's.
            if rungPackets > 0, nextSequence &- firstSequence >= 0x8000 { rungPackets = 0 }
            return [send(frame, fromRung: false)]
        }
    }

    /// Where a sequence number this viewer NACKs was sent from; nil for one it was never sent.
    func origin(ofSent sequence: UInt16) -> SentOrigin? {
        if Int(sequence &- firstSequence) < rungPackets { return .rung }
        // Packets of its own feed from before the switch were never sent to it.
        guard phase != .bridging, sequence &- switchSequence < 0x8000 else { return nil }
        return .own(sequence &- sequenceShift)
    }

    /// Numbers a frame (its timestamp already on the viewer's clock) and sends it.
    private mutating func send(_ frame: Frame, fromRung: Bool) -> Action {
        let (first, timestamp) = number(frame, fromRung: fromRung)
        return .send(firstSequence: first, timestamp: timestamp)
    }

    /// Numbers a held rung frame and releases it.
    private mutating func release(_ frame: Frame) -> Action {
        let (first, timestamp) = number(frame, fromRung: true)
        return .release(firstSequence: first, timestamp: timestamp)
    }

    private mutating func number(_ frame: Frame, fromRung: Bool) -> (UInt16, UInt32) {
        let first = nextSequence
        nextSequence &+= UInt16(truncatingIfNeeded: frame.packets)
        lastTimestamp = frame.timestamp
        if fromRung {
            rungPackets += frame.packets
            rungFrames += 1
        }
        return (first, frame.timestamp)
    }

    /// RFC 3550 §5.1: timestamps wrap; `a` is later than `b` when less than half the clock ahead.
    static func isAfter(_ a: UInt32, _ b: UInt32) -> Bool {
        let d = a &- b
        return d != 0 && d < 0x8000_0000
    }

    /// RFC 3550 §5.1: one packet put on the viewer's timeline (sequence number, timestamp, SSRC in the fixed header).
    static func rewrite(_ bytes: inout [UInt8], sequence: UInt16, timestamp: UInt32, ssrc: UInt32) {
        guard bytes.count >= 12 else { return }
        renumber(&bytes, sequence: sequence)
        for i in 0..<4 {
            bytes[4 + i] = UInt8(truncatingIfNeeded: timestamp >> (24 - 8 * i))
            bytes[8 + i] = UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * i))
        }
    }

    /// RFC 3550 §5.1: the sequence number alone (a packet of its own feed resent under the viewer's numbering).
    /// RFC 3550 §5.1: the sequence number of an RTP packet (bytes 2–3); nil for a packet too short to hold one.
    static func sequence(of bytes: [UInt8]) -> UInt16? {
        guard bytes.count >= 4 else { return nil }
        return UInt16(bytes[2]) << 8 | UInt16(bytes[3])
    }

    static func renumber(_ bytes: inout [UInt8], sequence: UInt16) {
        guard bytes.count >= 12 else { return }
        bytes[2] = UInt8(truncatingIfNeeded: sequence >> 8)
        bytes[3] = UInt8(truncatingIfNeeded: sequence)
    }
}
