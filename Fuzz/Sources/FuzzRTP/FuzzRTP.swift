import FuzzSupport
import WebRTCWire

/// RTP (RFC 3550 §5.1), header extensions (RFC 8285), RTX (RFC 4588) and the RFC 7983 demux: any datagram parses or
/// throws; a parsed packet serializes to the same bytes (padding content aside), its extension elements re-encode to
/// the same elements, and an RTX unwrap re-wraps to the packet.
@main enum FuzzRTPEntry {
    static func main() { FuzzDriver.run(fuzzRTP) }
}

/// One libFuzzer input: one (already SRTP-unprotected) datagram.
func fuzzRTP(_ bytes: [UInt8]) {
    let demuxed = PacketClass(classifying: bytes)
    guard let packet = try? RTPPacket(parsing: bytes) else { return }
    precondition(demuxed == .rtp || demuxed == .rtcp, "parsed RTP demuxed as \(demuxed)")
    let wire = packet.serialized()
    precondition((try? RTPPacket(parsing: wire)) == packet, "RTP round trip changed the packet")
    let unpadded = bytes.count - packet.paddingLength
    precondition(wire.count == bytes.count && wire[..<unpadded] == bytes[..<unpadded], "RTP re-serialized to other bytes")
    precondition(wire.last == bytes.last, "RTP padding count changed")
    precondition(PacketClass(classifying: wire) == demuxed, "re-serialized RTP demuxed differently")
    if let headerExtension = packet.headerExtension, let elements = try? headerExtension.elements() {
        if headerExtension.profile == RTPHeaderExtension.oneByteProfile {
            let again = RTPHeaderExtension.oneByte(elements)
            precondition(again != nil && (try? again?.elements()) == elements, "one-byte extension round trip failed")
        } else if headerExtension.profile & 0xFFF0 == 0x1000 {
            let again = RTPHeaderExtension.twoByte(elements, appBits: UInt8(headerExtension.profile & 0x0F))
            precondition(again?.profile == headerExtension.profile, "two-byte extension lost its app bits")
            precondition((try? again?.elements()) == elements, "two-byte extension round trip failed")
        } else {
            precondition(elements.isEmpty, "a generic extension block yielded elements")
        }
    }
    if let original = packet.unwrappingRetransmission(payloadType: 96, ssrc: 0x5EED) {
        precondition(original.payload.count == packet.payload.count - 2, "RTX unwrap kept the OSN")
        var expected = packet
        expected.paddingLength = 0
        let rewrapped = original.wrappedForRetransmission(
            payloadType: packet.payloadType, ssrc: packet.ssrc, sequenceNumber: packet.sequenceNumber)
        precondition(rewrapped == expected, "RTX unwrap then wrap changed the packet")
    }
    var opus = OpusDepacketizer()
    let frame = opus.push(packet)
    precondition(frame?.data ?? [] == packet.payload && (frame == nil) == packet.payload.isEmpty, "Opus frame is not the payload")
}
