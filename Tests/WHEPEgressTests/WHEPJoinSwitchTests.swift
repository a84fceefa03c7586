import Testing
import WebRTCWire

@testable import WHEPEgress

/// A viewer joining on the join rung: one timeline across the switch to its own feed (RFC 3550 §5.1).
struct WHEPJoinSwitchTests {
    typealias Frame = WHEPJoinSwitch.Frame

    static func rung(_ sequence: UInt16, _ packets: Int, _ timestamp: UInt32, key: Bool = false) -> Frame {
        Frame(origin: .rung, keyframe: key, firstSequence: sequence, packets: packets, timestamp: timestamp)
    }

    static func passthrough(_ sequence: UInt16, _ packets: Int, _ timestamp: UInt32, key: Bool = false) -> Frame {
        Frame(origin: .own, keyframe: key, firstSequence: sequence, packets: packets, timestamp: timestamp)
    }

    /// Rung IDR at once, passthrough frames dropped until its keyframe lies ahead of the rung's last frame, then the
    /// passthrough on a fixed sequence shift and the rung dropped; the viewer's numbers cross 65535 → 0 without a gap.
    @Test func goldenTimelineAcrossTheSwitch() {
        var join = WHEPJoinSwitch(firstSequence: 65_530, timestampShift: 1_000)
        let steps: [(Frame, [WHEPJoinSwitch.Action], WHEPJoinSwitch.Phase)] = [
            (Self.rung(100, 3, 9_000, key: true), [.send(firstSequence: 65_530, timestamp: 10_000)], .bridging),
            (Self.passthrough(5_000, 2, 9_000), [.drop], .bridging),
            (Self.rung(103, 2, 12_000), [.send(firstSequence: 65_533, timestamp: 13_000)], .bridging),
            // A keyframe not ahead of what the rung showed would step RTP time back: wait for the next.
            (Self.passthrough(5_002, 4, 12_000, key: true), [.missedKeyframe], .bridging),
            (Self.rung(105, 1, 15_000), [.send(firstSequence: 65_535, timestamp: 16_000)], .bridging),
            (
                Self.passthrough(5_010, 4, 18_000, key: true),
                [.leaveRung, .send(firstSequence: 0, timestamp: 18_000)], .switched
            ),
            (Self.rung(106, 2, 18_000), [.drop], .switched),
            (Self.passthrough(5_014, 2, 21_000), [.send(firstSequence: 4, timestamp: 21_000)], .switched),
            // A packet the viewer's queue refused is a gap it may NACK; the numbering stays on the shift.
            (Self.passthrough(5_017, 1, 24_000), [.send(firstSequence: 7, timestamp: 24_000)], .switched),
        ]
        for (n, (frame, actions, phase)) in steps.enumerated() {
            #expect(join.take(frame) == actions, "step \(n)")
            #expect(join.phase == phase, "step \(n)")
        }
        #expect(join.rungFrames == 3)
        #expect(join.sequenceShift == 0 &- 5_010)
        // NACKs: rung packets from the viewer's own history, passthrough ones mapped back, others never sent.
        let origins: [(UInt16, WHEPJoinSwitch.SentOrigin?)] = [
            (65_530, .rung), (65_535, .rung), (0, .own(5_010)), (5, .own(5_015)),
            (7, .own(5_017)), (65_529, nil),
        ]
        for (sequence, origin) in origins { #expect(join.origin(ofSent: sequence) == origin, "\(sequence)") }
    }

    /// The passthrough's keyframe before any rung frame: the viewer goes straight onto it.
    @Test func aPassthroughKeyframeFirstSwitchesAtOnce() {
        var join = WHEPJoinSwitch(firstSequence: 10, timestampShift: 7)
        #expect(
            join.take(Self.passthrough(300, 2, 50, key: true)) == [.leaveRung, .send(firstSequence: 10, timestamp: 50)]
        )
        #expect(join.take(Self.rung(1, 1, 60, key: true)) == [.drop])
        #expect(join.origin(ofSent: 11) == .own(301))
        #expect(join.origin(ofSent: 9) == nil)
    }

    /// Before the switch only rung packets can be NACKed; half the sequence space after it the rung's numbers are the
    /// passthrough's again.
    @Test func rungPacketsAreForgottenHalfTheSequenceSpaceLater() {
        var join = WHEPJoinSwitch(firstSequence: 0, timestampShift: 0)
        _ = join.take(Self.rung(0, 10, 100, key: true))
        #expect(join.origin(ofSent: 5) == .rung)
        #expect(join.origin(ofSent: 10) == nil)
        _ = join.take(Self.passthrough(1_000, 10, 200, key: true))
        #expect(join.origin(ofSent: 12) == .own(1_002))
        _ = join.take(Self.passthrough(1_000 &+ 0x8000, 1, 300))
        #expect(join.origin(ofSent: 5) != .rung)
    }

    /// RTP timestamps wrap: later means less than half the clock ahead.
    @Test func timestampsCompareAcrossTheWrap() {
        #expect(WHEPJoinSwitch.isAfter(5, 0xFFFF_FFF0))
        #expect(!WHEPJoinSwitch.isAfter(0xFFFF_FFF0, 5))
        #expect(!WHEPJoinSwitch.isAfter(42, 42))
    }

    /// A WebRTC-rung viewer: the join rung's frames are held two frames back, so the own rung's IDR of a picture the
    /// join rung already encoded still takes that picture's place: older held frames go out first, its own is thrown
    /// away, and the viewer's numbers and clock run on without a gap.
    @Test func heldRungFramesMakeWayForTheOwnFeedsKeyframeOfTheSamePicture() {
        var join = WHEPJoinSwitch(firstSequence: 500, timestampShift: 1_000, holdFrames: 2)
        let steps: [(Frame, [WHEPJoinSwitch.Action], WHEPJoinSwitch.Phase)] = [
            (Self.rung(100, 3, 9_000, key: true), [.hold], .bridging),
            (Self.rung(103, 2, 12_000), [.hold], .bridging),
            (Self.rung(105, 1, 15_000), [.hold, .release(firstSequence: 500, timestamp: 10_000)], .bridging),
            // The own IDR of the picture the join rung stamped 15_000 (16_000 on the viewer's clock).
            (
                Self.passthrough(5_000, 4, 16_000, key: true),
                [
                    .release(firstSequence: 503, timestamp: 13_000), .discardHeld, .leaveRung,
                    .send(firstSequence: 505, timestamp: 16_000),
                ], .switched
            ),
            (Self.rung(106, 2, 18_000), [.drop], .switched),
            (Self.passthrough(5_004, 2, 19_000), [.send(firstSequence: 509, timestamp: 19_000)], .switched),
        ]
        for (n, (frame, actions, phase)) in steps.enumerated() {
            #expect(join.take(frame) == actions, "step \(n)")
            #expect(join.phase == phase, "step \(n)")
        }
        #expect(join.rungFrames == 2 && join.held.isEmpty)
        let origins: [(UInt16, WHEPJoinSwitch.SentOrigin?)] = [
            (500, .rung), (504, .rung), (505, .own(5_000)), (510, .own(5_005)), (499, nil),
        ]
        for (sequence, origin) in origins { #expect(join.origin(ofSent: sequence) == origin, "\(sequence)") }
    }

    /// An own keyframe older than what the viewer was already sent cannot take over: it is missed (the feed is asked
    /// for another) and the held frames stay as they were.
    @Test func aKeyframeBehindWhatWasSentIsMissed() {
        var join = WHEPJoinSwitch(firstSequence: 0, timestampShift: 0, holdFrames: 1)
        #expect(join.take(Self.rung(0, 1, 3_000, key: true)) == [.hold])
        #expect(join.take(Self.rung(1, 1, 6_000)) == [.hold, .release(firstSequence: 0, timestamp: 3_000)])
        #expect(join.take(Self.passthrough(70, 2, 3_000, key: true)) == [.missedKeyframe])
        #expect(join.phase == .bridging && join.held.count == 1)
        #expect(
            join.take(Self.passthrough(80, 2, 9_000, key: true))
                == [
                    .release(firstSequence: 1, timestamp: 6_000), .leaveRung, .send(firstSequence: 2, timestamp: 9_000),
                ]
        )
    }

    /// Property: over random frame sequences and hold depths the viewer's sequence numbers never skip or repeat, its
    /// timestamps never step back, every held frame is released or thrown away once, and it never takes the rung
    /// again once switched.
    @Test func sentNumbersStepByOneAndTimeNeverStepsBack() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var join = WHEPJoinSwitch(
                firstSequence: .random(in: 0...UInt16.max),
                timestampShift: .random(in: 0...UInt32.max),
                holdFrames: .random(in: 0...3, using: &generator)
            )
            var rungSequence = UInt16.random(in: 0...UInt16.max, using: &generator)
            var passSequence = UInt16.random(in: 0...UInt16.max, using: &generator)
            let passOffset = UInt32.random(in: 0...UInt32.max, using: &generator)
            let rungOffset = passOffset &- join.timestampShift
            var expected: UInt16?
            var last: UInt32?
            var switched = false
            var held: [Int] = []
            var pts: UInt32 = 0
            // The rung stamps a picture as the own feed does, up to two frames later or one earlier (its encoder lag).
            let lag = UInt32(bitPattern: Int32(Int.random(in: -1...2, using: &generator) * 3_000))
            // One sent frame: numbered on from the last, later in RTP time.
            func sent(_ first: UInt16, _ timestamp: UInt32, _ packets: Int) {
                if let expected { #expect(first == expected) }
                if let last { #expect(WHEPJoinSwitch.isAfter(timestamp, last)) }
                expected = first &+ UInt16(packets)
                last = timestamp
            }
            for _ in 0..<60 {
                pts &+= 3_000
                let packets = Int.random(in: 1...5, using: &generator)
                let fromRung = Bool.random(using: &generator)
                let frame =
                    fromRung
                    ? Self.rung(rungSequence, packets, rungOffset &+ pts &- lag, key: Int.random(in: 0..<10) == 0)
                    : Self.passthrough(passSequence, packets, passOffset &+ pts, key: Int.random(in: 0..<10) == 0)
                if fromRung { rungSequence &+= UInt16(packets) } else { passSequence &+= UInt16(packets) }
                for action in join.take(frame) {
                    switch action {
                    case .leaveRung:
                        #expect(!switched)
                        switched = true
                    case .send(let first, let timestamp):
                        #expect(!(switched && fromRung))
                        sent(first, timestamp, packets)
                    case .hold:
                        #expect(fromRung && !switched)
                        held.append(packets)
                    case .release(let first, let timestamp):
                        sent(first, timestamp, held.removeFirst())
                    case .discardHeld:
                        held.removeFirst()
                    case .drop, .missedKeyframe:
                        continue
                    case .enterRung:
                        Issue.record("a join never enters a lower rendition")
                    }
                }
                #expect(held.count == join.held.count && held.count <= join.holdFrames)
            }
        }
    }

    /// RFC 3550 §5.1: the fixed header's sequence number, timestamp and SSRC are rewritten; the rest is untouched.
    @Test func rewriteGoldenBytes() {
        var bytes: [UInt8] = [0x80, 0xE0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0x7C, 0x85]
        WHEPJoinSwitch.rewrite(&bytes, sequence: 0xABCD, timestamp: 0x0102_0304, ssrc: 0xDEAD_BEEF)
        #expect(bytes == [0x80, 0xE0, 0xAB, 0xCD, 1, 2, 3, 4, 0xDE, 0xAD, 0xBE, 0xEF, 0x7C, 0x85])
        var short: [UInt8] = [0x80, 0xE0]
        WHEPJoinSwitch.rewrite(&short, sequence: 1, timestamp: 1, ssrc: 1)
        #expect(short == [0x80, 0xE0])
    }

    /// The answer covers both: every profile a payload type may take the passthrough in also decodes the rung's
    /// constrained baseline (H.264 A.2), so one profile-level-id serves the viewer across the switch.
    @Test func everyOfferedProfileThatTakesAPassthroughTakesTheRung() {
        for hex in ["42001f", "42e01f", "4d001f", "640c1f", "64001f", "f4001f", "4d0032", "640034"] {
            let offered = H264ProfileLevelID(hex: hex)!
            #expect(offered.receives(WebRTCRungEncoder.profile), "\(hex)")
        }
    }
}
