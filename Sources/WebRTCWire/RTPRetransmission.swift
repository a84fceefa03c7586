/// RFC 4588 §4: an RTX packet carries the original sequence number (OSN) in its first two payload bytes, under its
/// own payload type and SSRC.
extension RTPPacket {
    /// The original packet inside an RTX packet, restored to the media `payloadType` and `ssrc`; nil for an RTX
    /// packet without an OSN or with nothing after it (padding-only bandwidth probes).
    public func unwrappingRetransmission(payloadType: UInt8, ssrc: UInt32) -> RTPPacket? {
        guard payload.count > 2 else { return nil }
        var original = self
        original.payloadType = payloadType
        original.ssrc = ssrc
        original.sequenceNumber = UInt16(payload[0]) << 8 | UInt16(payload[1])
        original.payload = Array(payload[2...])
        original.paddingLength = 0
        return original
    }

    /// The RTX packet that retransmits this one (for our own publisher answering a NACK).
    public func wrappedForRetransmission(payloadType: UInt8, ssrc: UInt32, sequenceNumber: UInt16) -> RTPPacket {
        var rtx = self
        rtx.payloadType = payloadType
        rtx.ssrc = ssrc
        rtx.sequenceNumber = sequenceNumber
        rtx.payload = [UInt8(self.sequenceNumber >> 8), UInt8(self.sequenceNumber & 0xFF)] + payload
        return rtx
    }
}
