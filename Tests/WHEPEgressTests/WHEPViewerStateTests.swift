import MediaCore
import Testing
import WebRTCWire

@testable import WHEPEgress

/// A viewer's life as a value: each event's golden actions, without a network (the rung is named by a string).
@Suite("WHEP viewer state")
struct WHEPViewerStateTests {
    typealias State = WHEPViewerState<String>

    /// One frame's packets as a feed numbered them: a 12-byte RTP header (payload type 96) and a byte each.
    static func frame(_ sequence: UInt16, _ timestamp: UInt32, packets: Int, ssrc: UInt32 = 0x0BAD) -> [[UInt8]] {
        (0..<packets).map { i in
            RTPPacket(
                payloadType: 96,
                sequenceNumber: sequence &+ UInt16(i),
                timestamp: timestamp,
                ssrc: ssrc,
                payload: [UInt8(i)]
            ).serialized()
        }
    }

    static func viewer(queueLimit: Int = 64) -> State {
        State(videoPayloadType: 102, audioPayloadType: 111, queueLimit: queueLimit, rtxSequence: 0)
    }

    @Test func videoWaitsForTheFirstKeyframeAfterConnectingWhileAudioFlowsAtOnce() {
        var s = Self.viewer()
        #expect(s.video(Self.frame(1, 0, packets: 2), keyframe: true, transmitted: 0) == [])
        #expect(s.audio([[0x80, 0x6F, 0, 1]], transmitted: 0) == [])
        s.connected()
        #expect(s.phase == .waitingForKeyframe)
        #expect(s.audio([[0x80, 0x6F, 0, 1]], transmitted: 0) == [.transmit([[0x80, 0x6F, 0, 1]], payloadType: 111)])
        #expect(s.video(Self.frame(3, 3_000, packets: 1), keyframe: false, transmitted: 0) == [.needsKeyframe])
        let idr = Self.frame(4, 6_000, packets: 3)
        #expect(s.video(idr, keyframe: true, transmitted: 0) == [.transmit(idr, payloadType: 102)])
        let next = Self.frame(7, 9_000, packets: 1)
        #expect(s.video(next, keyframe: false, transmitted: 0) == [.transmit(next, payloadType: 102)])
        #expect(s.phase == .playing && s.resends.keyframeSequence == 4)
        #expect(s.counters.videoPacketsSent == 4 && s.counters.audioPacketsSent == 1)
    }

    @Test func aFrameItsQueueCannotTakeIsDroppedAndVideoWaitsForTheNextKeyframe() {
        var s = Self.viewer(queueLimit: 4)
        s.connected()
        let idr = Self.frame(1, 0, packets: 3)
        #expect(s.video(idr, keyframe: true, transmitted: 0) == [.transmit(idr, payloadType: 102)])
        // Three packets still with the transport: two more do not fit.
        #expect(s.video(Self.frame(4, 3_000, packets: 2), keyframe: false, transmitted: 0) == [.needsKeyframe])
        #expect(s.phase == .waitingForKeyframe && s.counters.videoPacketsDropped == 2)
        #expect(s.audio([[0x80, 0x6F, 0, 1], [0x80, 0x6F, 0, 2]], transmitted: 0) == [])
        #expect(s.counters.audioPacketsDropped == 2)
        // The transport finished them: a delta still waits, the next keyframe goes.
        #expect(s.video(Self.frame(6, 6_000, packets: 1), keyframe: false, transmitted: 3) == [.needsKeyframe])
        let next = Self.frame(7, 9_000, packets: 4)
        #expect(s.video(next, keyframe: true, transmitted: 3) == [.transmit(next, payloadType: 102)])
    }

    /// The join rung's frames go out on the viewer's numbering and clock; its own feed's keyframe takes over with the
    /// next sequence number, on its own clock, and the rung is left in the same event.
    @Test func aJoinOnTheRungSplicesOntoTheOwnFeedWithSequenceNumbersAndTimestampsContinuing() {
        var s = Self.viewer()
        let ssrc: UInt32 = 0x00C0_FFEE
        let timeline = WHEPJoinSwitch(firstSequence: 100, timestampShift: 1_000)
        s.joinOnRung("join-rung", timeline: timeline, ssrc: ssrc, historyCapacity: 64)
        s.connected()
        #expect(s.joiningRung == "join-rung" && s.onJoinRung && s.joinedOnJoinRung)
        #expect(
            s.video(Self.frame(1, 3_000, packets: 2), keyframe: true, origin: .rung, transmitted: 0)
                == [.transmit(Self.frame(100, 4_000, packets: 2, ssrc: ssrc), payloadType: 102)]
        )
        #expect(
            s.video(Self.frame(3, 6_000, packets: 1), keyframe: false, origin: .rung, transmitted: 0)
                == [.transmit(Self.frame(102, 7_000, packets: 1, ssrc: ssrc), payloadType: 102)]
        )
        // Its own feed before its keyframe is not for the viewer yet.
        #expect(s.video(Self.frame(500, 8_000, packets: 1, ssrc: ssrc), keyframe: false, transmitted: 0) == [])
        #expect(
            s.video(Self.frame(501, 9_000, packets: 2, ssrc: ssrc), keyframe: true, transmitted: 0)
                == [
                    .transmit(Self.frame(103, 9_000, packets: 2, ssrc: ssrc), payloadType: 102),
                    .leaveRung("join-rung"),
                ]
        )
        #expect(s.timelinePhase == .switched && s.joiningRung == nil && !s.onJoinRung && s.joinedOnJoinRung)
        #expect(s.video(Self.frame(5, 9_000, packets: 1), keyframe: false, origin: .rung, transmitted: 0) == [])
        #expect(
            s.video(Self.frame(503, 12_000, packets: 1, ssrc: ssrc), keyframe: false, transmitted: 0)
                == [.transmit(Self.frame(105, 12_000, packets: 1, ssrc: ssrc), payloadType: 102)]
        )
        #expect(s.counters.framesFromRung == 2 && s.counters.videoPacketsSent == 6)
        // A NACK maps back: rung packets from the viewer's history, its own feed's to that feed's numbers.
        #expect(
            s.nacked([101, 104, 99])
                == [
                    .sent(Self.frame(100, 4_000, packets: 2, ssrc: ssrc)[1]), .feed(original: 502, sequence: 104),
                    .unknown,
                ]
        )
    }

    /// A step down onto a lower rendition at its keyframe and back up at the own feed's, on one numbering and clock.
    @Test func aStepDownAndBackUpKeepOneSequenceAndClock() {
        var s = Self.viewer()
        s.connected()
        let idr = Self.frame(10, 0, packets: 1)
        #expect(s.video(idr, keyframe: true, transmitted: 0) == [.transmit(idr, payloadType: 102)])
        let down = s.stepDown(
            onto: "360p",
            timestampShift: 500,
            ssrc: 0x0BAD,
            ownPosition: (nextSequence: 11, lastTimestamp: 0),
            historyCapacity: 64
        )
        #expect(down && s.timelinePhase == .steppingDown && s.lowerRendition == "360p")
        let own = Self.frame(11, 3_000, packets: 1)
        #expect(s.video(own, keyframe: false, transmitted: 0) == [.transmit(own, payloadType: 102)])
        // Its own feed's keyframe waits for the lower rendition's IDR of that picture.
        #expect(s.video(Self.frame(12, 6_000, packets: 1), keyframe: true, transmitted: 0) == [])
        #expect(
            s.video(Self.frame(70, 5_500, packets: 2, ssrc: 0x0360), keyframe: true, origin: .rung, transmitted: 0)
                == [.transmit(Self.frame(12, 6_000, packets: 2), payloadType: 102)]
        )
        #expect(s.timelinePhase == .onRung && s.showingLowerRendition == "360p" && s.counters.stepsDown == 1)
        #expect(s.stepUp() == [])
        #expect(s.video(Self.frame(13, 9_000, packets: 1), keyframe: false, transmitted: 0) == [])
        #expect(
            s.video(Self.frame(14, 12_000, packets: 1), keyframe: true, transmitted: 0)
                == [.transmit(Self.frame(14, 12_000, packets: 1), payloadType: 102), .leaveRung("360p")]
        )
        #expect(s.timelinePhase == .switched && s.lowerRendition == nil && s.counters.stepsUp == 1)
    }

    @Test func aClosedViewerSendsNothingAndLeavesItsRungOnce() {
        var s = Self.viewer()
        s.joinOnRung(
            "join-rung",
            timeline: WHEPJoinSwitch(firstSequence: 1, timestampShift: 0),
            ssrc: 1,
            historyCapacity: 8
        )
        s.connected()
        s.closed()
        #expect(!s.isSending)
        #expect(s.video(Self.frame(1, 0, packets: 1), keyframe: true, origin: .rung, transmitted: 0) == [])
        #expect(s.audio([[0x80, 0x6F, 0, 1]], transmitted: 0) == [])
        #expect(s.leaveRung() == [.leaveRung("join-rung")])
        #expect(s.leaveRung() == [])
    }

    /// RFC 4588 §4: resends go on the RTX stream numbered on from the viewer's RTX sequence, inside the queue bound.
    @Test func retransmissionsTakeTheRTXStreamsNumbersAndTheQueueBound() {
        let rtx = RetransmissionStream(
            codec: RTPCodec(payloadType: 103, name: "rtx", clockRate: 90_000, parameters: [("apt", "102")]),
            ssrc: 0x0BAD_CAFE
        )
        var s = State(
            videoPayloadType: 102,
            audioPayloadType: 111,
            videoRetransmission: rtx,
            queueLimit: 3,
            rtxSequence: 7
        )
        s.connected()
        let lost = Self.frame(40, 0, packets: 2)
        var sequence: UInt16 = 7
        let wrapped = WHEPViewer.retransmissions(lost, on: rtx, sequence: &sequence)
        #expect(s.retransmit(lost, kind: .video, transmitted: 0) == [.transmit(wrapped, payloadType: 103)])
        #expect(s.rtxSequence == 9 && s.counters.retransmittedOnRTX == 2)
        #expect(s.retransmit(lost, kind: .video, transmitted: 0) == [])
        #expect(s.rtxSequence == 11 && s.counters.retransmittedPackets == 2)
    }
}
