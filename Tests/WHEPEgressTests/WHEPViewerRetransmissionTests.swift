import MediaCore
import Testing
import WebRTCWire

@testable import WHEPEgress

/// RFC 4588 §4 on the way out: a NACKed video packet goes to an RTX viewer on its RTX stream, OSN first.
struct WHEPViewerRetransmissionTests {
    static let rtx = RetransmissionStream(
        codec: RTPCodec(payloadType: 109, name: "rtx", clockRate: 90_000, parameters: [("apt", "108")]),
        ssrc: 0x0BAD_CAFE
    )

    /// Two history packets (sequence 65535 and 0, the wrap) resent from RTX sequence 65535: golden bytes.
    @Test func nackedPacketsGoOutOnTheRTXStreamWithTheirOriginalSequenceNumbers() throws {
        let first = RTPPacket(
            marker: false,
            payloadType: 108,
            sequenceNumber: 65_535,
            timestamp: 0x0102_0304,
            ssrc: 0x1111_1111,
            payload: [0x7C, 0x85, 0xAA]
        )
        var second = first
        second.sequenceNumber = 0
        second.marker = true
        second.payload = [0x7C, 0x45, 0xBB]
        var sequence: UInt16 = 65_535
        let sent = WHEPViewer.retransmissions(
            [first.serialized(), [0x80], second.serialized()],
            on: Self.rtx,
            sequence: &sequence
        )
        #expect(sequence == 1)  // The malformed entry was skipped and took no RTX sequence number.
        #expect(
            sent == [
                [0x80, 109, 0xFF, 0xFF, 1, 2, 3, 4, 0x0B, 0xAD, 0xCA, 0xFE, 0xFF, 0xFF, 0x7C, 0x85, 0xAA],
                [0x80, 0x80 | 109, 0, 0, 1, 2, 3, 4, 0x0B, 0xAD, 0xCA, 0xFE, 0, 0, 0x7C, 0x45, 0xBB],
            ]
        )
        let unwrapped = try sent.map {
            try RTPPacket(parsing: $0).unwrappingRetransmission(payloadType: 108, ssrc: 0x1111_1111)
        }
        #expect(unwrapped == [first, second])
    }
}
