/// A passthrough viewer that joins on the join rung: the rung's IDR reaches it at once (an RTMP source cannot be
/// asked for a keyframe; a WHIP publisher was asked inside its window), and at the passthrough's next keyframe it
/// moves onto the passthrough for good. The passthrough's frames arrive before the rung's encodes of them, so that
/// keyframe lies ahead of what the rung sent. The viewer sees one stream throughout (RFC 3550 §5.1: one SSRC,
/// sequence numbers that step by one, one RTP clock):
///
/// - its RTP clock is the passthrough's; the rung's timestamps move by `timestampShift` (both feeds stamp the same
///   source presentation times, each from its own random offset);
/// - while on the rung its sequence numbers are its own, counted on from a start of its own; from the switch on
///   they are the passthrough's moved by a fixed shift;
/// - a NACK is answered from what this viewer was sent (`origin(ofSent:)`).
///
/// A value: each frame in gives the actions to carry out, so the timeline is tested without a network.
struct WHEPJoinSwitch: Sendable, Equatable {
    /// Which feed a frame came from.
    enum Origin: Sendable, Equatable {
        case rung
        case passthrough
    }

    /// Where the viewer's video comes from.
    enum Phase: Sendable, Equatable {
        /// From the rung, until the passthrough's next keyframe.
        case bridging
        /// From the passthrough; the rung's frames are no longer taken.
        case switched
    }

    /// One access unit's packets as their feed numbered them (all of a frame's packets share its timestamp).
    struct Frame: Sendable, Equatable {
        var origin: Origin
        var keyframe: Bool
        var firstSequence: UInt16
        var packets: Int
        var timestamp: UInt32
    }

    /// What to do with one frame.
    enum Action: Sendable, Equatable {
        /// Send its packets on the viewer's SSRC numbered from `firstSequence` on, stamped `timestamp`.
        case send(firstSequence: UInt16, timestamp: UInt32)
        /// Not for this viewer (the other feed's, or the passthrough before its keyframe).
        case drop
        /// The viewer moved onto the passthrough with this frame: stop feeding it the rung (and the rung may stop).
        case leaveRung
    }

    /// Where a sequence number the viewer NACKs was sent from.
    enum SentOrigin: Sendable, Equatable {
        /// A rung packet as this viewer got it: from the viewer's own history.
        case rung
        /// A passthrough packet: this sequence number in the passthrough's history.
        case passthrough(UInt16)
    }

    private(set) var phase = Phase.bridging
    /// Added to a rung timestamp to put it on the passthrough's clock.
    let timestampShift: UInt32
    /// The viewer's next sequence number.
    private(set) var nextSequence: UInt16
    /// The first sequence number the viewer was sent, and how many came from the rung.
    let firstSequence: UInt16
    private(set) var rungPackets = 0
    /// Added to a passthrough sequence number once switched.
    private(set) var sequenceShift: UInt16 = 0
    /// The viewer's sequence number of the first passthrough packet.
    private(set) var switchSequence: UInt16 = 0
    /// The newest timestamp sent (the passthrough's keyframe must not step back behind the rung's last frame).
    private(set) var lastTimestamp: UInt32?
    /// Frames the viewer got from the rung.
    private(set) var rungFrames = 0

    /// A viewer starting at sequence number `firstSequence`, rung timestamps moved by `timestampShift`.
    init(firstSequence: UInt16, timestampShift: UInt32) {
        self.firstSequence = firstSequence
        nextSequence = firstSequence
        self.timestampShift = timestampShift
    }

    /// The actions for one frame from either feed.
    mutating func take(_ frame: Frame) -> [Action] {
        switch (phase, frame.origin) {
        case (.bridging, .rung):
            let timestamp = frame.timestamp &+ timestampShift
            return [send(frame, timestamp: timestamp, fromRung: true)]
        case (.bridging, .passthrough):
            // Switch at a keyframe that lies ahead of what the rung already showed (RTP time never steps back).
            guard frame.keyframe else { return [.drop] }
            if let lastTimestamp, !Self.isAfter(frame.timestamp, lastTimestamp) { return [.drop] }
            phase = .switched
            sequenceShift = nextSequence &- frame.firstSequence
            switchSequence = nextSequence
            return [.leaveRung, send(frame, timestamp: frame.timestamp, fromRung: false)]
        case (.switched, .rung):
            return [.drop]
        case (.switched, .passthrough):
            nextSequence = frame.firstSequence &+ sequenceShift
            // Half the sequence space later the rung's packets are long out of every history: forget them, so the
            // numbers they had, when they come round again, are the passthrough's.
            if rungPackets > 0, nextSequence &- firstSequence >= 0x8000 { rungPackets = 0 }
            return [send(frame, timestamp: frame.timestamp, fromRung: false)]
        }
    }

    /// Where a sequence number this viewer NACKs was sent from; nil for one it was never sent.
    func origin(ofSent sequence: UInt16) -> SentOrigin? {
        if Int(sequence &- firstSequence) < rungPackets { return .rung }
        // Passthrough packets it skipped before the switch were never its own.
        guard phase == .switched, sequence &- switchSequence < 0x8000 else { return nil }
        return .passthrough(sequence &- sequenceShift)
    }

    private mutating func send(_ frame: Frame, timestamp: UInt32, fromRung: Bool) -> Action {
        let first = nextSequence
        nextSequence &+= UInt16(truncatingIfNeeded: frame.packets)
        lastTimestamp = timestamp
        if fromRung {
            rungPackets += frame.packets
            rungFrames += 1
        }
        return .send(firstSequence: first, timestamp: timestamp)
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

    /// RFC 3550 §5.1: the sequence number alone (a passthrough packet resent under the viewer's numbering).
    static func renumber(_ bytes: inout [UInt8], sequence: UInt16) {
        guard bytes.count >= 12 else { return }
        bytes[2] = UInt8(truncatingIfNeeded: sequence >> 8)
        bytes[3] = UInt8(truncatingIfNeeded: sequence)
    }
}
