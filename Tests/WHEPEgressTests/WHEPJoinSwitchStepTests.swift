import Testing

@testable import WHEPEgress

/// A viewer stepping down onto a lower rendition and back (`WHEPBandwidthAdaptation`): one SSRC, sequence numbers that
/// step by one and an RTP clock that never steps back, across both switches (RFC 3550 §5.1).
struct WHEPJoinSwitchStepTests {
    static func rung(_ sequence: UInt16, _ packets: Int, _ timestamp: UInt32, key: Bool = false) -> WHEPJoinSwitch.Frame
    {
        WHEPJoinSwitchTests.rung(sequence, packets, timestamp, key: key)
    }

    /// A frame of the viewer's own feed (the join tests' passthrough).
    static func own(_ sequence: UInt16, _ packets: Int, _ timestamp: UInt32, key: Bool = false) -> WHEPJoinSwitch.Frame
    {
        WHEPJoinSwitchTests.passthrough(sequence, packets, timestamp, key: key)
    }

    /// Never joined: its own numbers pass through; down at the rung's keyframe (not before, not one behind), the
    /// rung's frames on the own clock; up at its own feed's keyframe, numbered on without a gap.
    @Test func goldenDownAndBackUp() {
        var timeline = WHEPJoinSwitch(onOwnFeedAt: 500, historyPackets: 100)
        #expect(timeline.phase == .switched)
        let before: [(WHEPJoinSwitch.Frame, [WHEPJoinSwitch.Action])] = [
            (Self.own(500, 2, 9_000), [.send(firstSequence: 500, timestamp: 9_000)]),
            (Self.rung(7, 1, 2_000, key: true), [.drop]),
        ]
        for (n, (frame, actions)) in before.enumerated() { #expect(timeline.take(frame) == actions, "before \(n)") }
        // Its own packets from before the step down (the feed's history holds them) map back unchanged.
        #expect(timeline.origin(ofSent: 450) == .own(450))
        let first = timeline.stepDown(timestampShift: 7_000)
        let again = timeline.stepDown(timestampShift: 7_000)
        #expect(first && !again)
        let steps: [(WHEPJoinSwitch.Frame, [WHEPJoinSwitch.Action], WHEPJoinSwitch.Phase)] = [
            // Its own frames go on until the rung's keyframe; the rung's others wait.
            (Self.rung(8, 1, 5_000), [.drop], .steppingDown),
            (Self.own(502, 3, 12_000), [.send(firstSequence: 502, timestamp: 12_000)], .steppingDown),
            // A rung keyframe of a picture already shown would step RTP time back: not that one.
            (Self.rung(9, 2, 5_000, key: true), [.drop], .steppingDown),
            // Its own keyframe: the rung's IDR of the same picture comes behind it, so nothing goes out until then.
            (Self.own(505, 1, 15_000, key: true), [.drop], .awaitingRung),
            (Self.own(506, 4, 18_000), [.drop], .awaitingRung),
            (Self.rung(11, 2, 8_000, key: true), [.enterRung, .send(firstSequence: 505, timestamp: 15_000)], .onRung),
            (Self.own(510, 4, 21_000, key: true), [.drop], .onRung),
            (Self.rung(13, 1, 11_000), [.send(firstSequence: 507, timestamp: 18_000)], .onRung),
        ]
        for (n, (frame, actions, phase)) in steps.enumerated() {
            #expect(timeline.take(frame) == actions, "down \(n)")
            #expect(timeline.phase == phase, "down \(n)")
        }
        let steppedUp = timeline.stepUp()
        #expect(steppedUp)
        let up: [(WHEPJoinSwitch.Frame, [WHEPJoinSwitch.Action], WHEPJoinSwitch.Phase)] = [
            (Self.own(514, 2, 24_000), [.drop], .bridging),
            (Self.rung(14, 1, 14_000), [.send(firstSequence: 508, timestamp: 21_000)], .bridging),
            // Its own keyframe is ahead of the rung: it takes over at once (the viewer skips the rung's lag).
            (
                Self.own(516, 3, 27_000, key: true), [.leaveRung, .send(firstSequence: 509, timestamp: 27_000)],
                .switched
            ),
            (Self.rung(15, 1, 17_000), [.drop], .switched),
            (Self.own(519, 1, 30_000), [.send(firstSequence: 512, timestamp: 30_000)], .switched),
        ]
        for (n, (frame, actions, phase)) in up.enumerated() {
            #expect(timeline.take(frame) == actions, "up \(n)")
            #expect(timeline.phase == phase, "up \(n)")
        }
        // After the step up its own packets map by the new shift (the viewer's history answers for older ones).
        #expect(timeline.origin(ofSent: 512) == .own(519))
    }

    /// The rung has no IDR of its own feed's keyframe picture: its own feed goes on at its next keyframe, numbered on
    /// without a gap, and the step down waits for the rung's next IDR.
    @Test func aRungWithoutThatIDRFallsBackToTheOwnFeedsNextKeyframe() {
        var timeline = WHEPJoinSwitch(onOwnFeedAt: 100, historyPackets: 10)
        #expect(timeline.take(Self.own(100, 2, 3_000)) == [.send(firstSequence: 100, timestamp: 3_000)])
        let down = timeline.stepDown(timestampShift: 0)
        #expect(down)
        #expect(timeline.take(Self.own(102, 2, 6_000, key: true)) == [.drop])
        #expect(timeline.take(Self.rung(50, 1, 6_000)) == [.drop])
        #expect(timeline.take(Self.own(104, 2, 9_000)) == [.drop])
        let refused = timeline.stepUp()
        #expect(!refused && timeline.phase == .awaitingRung)
        #expect(timeline.take(Self.own(106, 3, 12_000, key: true)) == [.send(firstSequence: 102, timestamp: 12_000)])
        #expect(timeline.phase == .steppingDown)
        #expect(timeline.take(Self.own(109, 1, 15_000)) == [.send(firstSequence: 105, timestamp: 15_000)])
        #expect(
            timeline.take(Self.rung(60, 2, 18_000, key: true)) == [
                .enterRung, .send(firstSequence: 106, timestamp: 18_000),
            ]
        )
    }

    /// The rung stops: a step down not yet begun is called off; one that left its own feed waits for its next keyframe.
    @Test func aRungThatStopsSendsTheViewerBack() {
        var waiting = WHEPJoinSwitch(onOwnFeedAt: 1, historyPackets: 10)
        _ = waiting.stepDown(timestampShift: 0)
        waiting.rungEnded()
        #expect(waiting.phase == .switched)
        var onRung = WHEPJoinSwitch(onOwnFeedAt: 1, historyPackets: 10)
        #expect(onRung.take(Self.own(1, 1, 3_000)) == [.send(firstSequence: 1, timestamp: 3_000)])
        _ = onRung.stepDown(timestampShift: 0)
        #expect(onRung.take(Self.own(2, 1, 6_000, key: true)) == [.drop])
        #expect(onRung.phase == .awaitingRung)
        onRung.rungEnded()
        #expect(onRung.phase == .bridging)
        #expect(onRung.take(Self.own(3, 1, 9_000)) == [.drop])
        #expect(
            onRung.take(Self.own(4, 2, 12_000, key: true)) == [.leaveRung, .send(firstSequence: 2, timestamp: 12_000)]
        )
    }

    /// A step down still waiting for the rung's keyframe is called off by a step up; a join under way cannot step.
    @Test func callingOffAndRefusals() {
        var timeline = WHEPJoinSwitch(onOwnFeedAt: 1, historyPackets: 10)
        let down = timeline.stepDown(timestampShift: 0)
        let calledOff = timeline.stepUp()
        #expect(down && calledOff && timeline.phase == .switched)
        let upAgain = timeline.stepUp()
        #expect(!upAgain)
        #expect(timeline.take(Self.rung(3, 1, 90, key: true)) == [.drop])
        var joining = WHEPJoinSwitch(firstSequence: 1, timestampShift: 0)
        let joinDown = joining.stepDown(timestampShift: 0)
        let joinUp = joining.stepUp()
        #expect(!joinDown && !joinUp && joining.phase == .bridging)
    }

    /// Random frames from both feeds with random step downs and ups: whatever is sent is numbered on from the last
    /// with no gap and later in RTP time, and comes from the feed the phase says.
    @Test func propertyOneTimelineAcrossRandomSteps() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var timeline = WHEPJoinSwitch(onOwnFeedAt: UInt16.random(in: 0...UInt16.max), historyPackets: 1_024)
            let ownOffset = UInt32.random(in: 0...UInt32.max, using: &generator)
            let rungOffset = UInt32.random(in: 0...UInt32.max, using: &generator)
            var ownSequence = UInt16.random(in: 0...UInt16.max, using: &generator)
            var rungSequence = UInt16.random(in: 0...UInt16.max, using: &generator)
            var pts: UInt32 = 0
            // The rung stamps a moment up to a frame later or earlier than the own feed (its encoder's lag).
            let lag = UInt32(bitPattern: Int32(Int.random(in: -1...1, using: &generator) * 3_000))
            var expected: UInt16?
            var last: UInt32?
            for _ in 0..<120 {
                switch Int.random(in: 0..<20, using: &generator) {
                case 0: _ = timeline.stepDown(timestampShift: ownOffset &- rungOffset)
                case 1: _ = timeline.stepUp()
                default: break
                }
                pts &+= 3_000
                let packets = Int.random(in: 1...5, using: &generator)
                let fromRung = Bool.random(using: &generator)
                let key = Int.random(in: 0..<8, using: &generator) == 0
                let frame =
                    fromRung
                    ? Self.rung(rungSequence, packets, rungOffset &+ pts &- lag, key: key)
                    : Self.own(ownSequence, packets, ownOffset &+ pts, key: key)
                if fromRung { rungSequence &+= UInt16(packets) } else { ownSequence &+= UInt16(packets) }
                let phase = timeline.phase
                for action in timeline.take(frame) {
                    guard case .send(let first, let timestamp) = action else { continue }
                    // The feed whose frames go out in that phase (or the one it switched to with this keyframe).
                    let fromOwnPhase = phase == .switched || phase == .steppingDown
                    #expect(fromRung != fromOwnPhase || key)
                    if let expected { #expect(first == expected) }
                    if let last { #expect(WHEPJoinSwitch.isAfter(timestamp, last)) }
                    expected = first &+ UInt16(packets)
                    last = timestamp
                }
            }
        }
    }
}
