import MediaCore
import WebRTCWire

/// Video for one viewer: admitted at a keyframe, put on its timeline while it joins or steps onto a rung
/// (`WHEPJoinSwitch`), bounded by its transport queue.
extension WHEPViewerState {
    /// One video access unit's packets as feed `origin` numbered them; the transport has finished `transmitted`
    /// packets. Sent when the viewer is in sync (or it is a keyframe to join on).
    mutating func video(
        _ packets: [[UInt8]],
        keyframe: Bool,
        origin: WHEPJoinSwitch.Origin = .own,
        transmitted: Int
    ) -> [Action] {
        guard let payloadType = videoPayloadType else { return [] }
        if phase == .waitingForKeyframe, keyframe { phase = .playing }
        guard phase == .playing else { return phase == .waitingForKeyframe ? [.needsKeyframe] : [] }
        var actions: [Action] = []
        var sent: (enqueued: Bool, packets: Int, rungFrames: Int)
        let outcome = onTimeline(
            packets,
            keyframe: keyframe,
            origin: origin,
            payloadType: payloadType,
            transmitted: transmitted,
            into: &actions
        )
        switch outcome {
        case .notJoining:
            let enqueued = hand(
                packets,
                payloadType: payloadType,
                keyframe: keyframe,
                transmitted: transmitted,
                into: &actions
            )
            sent = (enqueued, packets.count, 0)
        case .dropped: return actions
        case .missedKeyframe: return actions + [.needsKeyframe]
        case .sent(let enqueued, let count, let rungFrames, let switched, let entered, let stepped):
            if switched { actions += leaveRung() }
            if switched, stepped { counters.stepsUp += 1 }
            if entered { counters.stepsDown += 1 }
            sent = (enqueued, count, rungFrames)
        }
        counters.framesFromRung += sent.rungFrames
        if sent.enqueued {
            counters.videoPacketsSent += sent.packets
            return actions
        }
        // A lost piece of a frame breaks every frame after it until the next keyframe: wait for one.
        counters.videoPacketsDropped += sent.packets
        phase = .waitingForKeyframe
        return actions + [.needsKeyframe]
    }

    /// Adds a transmit action when the packets fit the viewer's queue; a keyframe's first sequence number (as the
    /// viewer gets it) bounds what a NACK may have resent (`dueForResend`). False when the queue refused them.
    mutating func hand(
        _ packets: [[UInt8]],
        payloadType: UInt8,
        keyframe: Bool = false,
        transmitted: Int,
        into actions: inout [Action]
    ) -> Bool {
        guard admit(packets.count, transmitted: transmitted) else { return false }
        actions.append(.transmit(packets, payloadType: payloadType))
        if keyframe, let first = packets.first.flatMap(WHEPJoinSwitch.sequence(of:)) {
            resends.keyframeSequence = first
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

    /// Puts a bridged viewer's frame (and the held rung frames it releases) on its timeline, in the order their
    /// sequence numbers were given.
    private mutating func onTimeline(
        _ packets: [[UInt8]],
        keyframe: Bool,
        origin: WHEPJoinSwitch.Origin,
        payloadType: UInt8,
        transmitted: Int,
        into actions: inout [Action]
    ) -> TimelineOutcome {
        guard let first = packets.first, first.count >= 12, let firstSequence = WHEPJoinSwitch.sequence(of: first),
            var bridge = bridge.take()
        else {
            return .notJoining
        }
        // Taken out while it changes, so its history and held frames are not copied.
        defer { self.bridge = bridge }
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
            let handed = hand(
                rewritten,
                payloadType: payloadType,
                keyframe: keyframe,
                transmitted: transmitted,
                into: &actions
            )
            enqueued = handed && enqueued
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
