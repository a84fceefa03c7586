/// RFC 6184 §5.6–5.8 (packetization-mode 1): AVCC access units into single-NAL, STAP-A and FU-A payloads.
public struct H264Packetizer: Sendable {
    /// Largest RTP payload (leave room for the 12-byte header, extensions and the 10-byte SRTP tag under the MTU).
    public var maxPayloadSize: Int
    /// Payload type to stamp.
    public var payloadType: UInt8
    /// SSRC to stamp.
    public var ssrc: UInt32
    /// The next sequence number.
    public private(set) var sequenceNumber: UInt16

    /// A packetizer starting at `sequenceNumber` (RFC 3550 §5.1: start at a random value).
    public init(maxPayloadSize: Int = 1_200, payloadType: UInt8, ssrc: UInt32, sequenceNumber: UInt16) {
        self.maxPayloadSize = max(maxPayloadSize, 16)
        self.payloadType = payloadType
        self.ssrc = ssrc
        self.sequenceNumber = sequenceNumber
    }

    /// The packets of one access unit (4-byte AVCC lengths) at `timestamp`; the last carries the marker bit.
    /// AUD and filler NAL units are left out (RFC 6184 §5.4 lets senders drop them).
    public mutating func packetize(avcc data: [UInt8], timestamp: UInt32) throws(WebRTCWireError) -> [RTPPacket] {
        var nals: [ArraySlice<UInt8>] = []
        var offset = 0
        while offset < data.count {
            guard offset + 4 <= data.count else {
                throw .truncated(what: "AVCC length", offset: offset, wanted: 4, available: data.count - offset)
            }
            let length = data[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard length <= data.count - offset - 4 else {
                throw .truncated(
                    what: "AVCC NAL unit",
                    offset: offset + 4,
                    wanted: length,
                    available: data.count - offset - 4
                )
            }
            let nal = data[(offset + 4)..<(offset + 4 + length)]
            if let type = nal.first.map({ $0 & 0x1F }), type != 9, type != 12 { nals.append(nal) }
            offset += 4 + length
        }
        var payloads: [[UInt8]] = []
        var pending: [ArraySlice<UInt8>] = []
        func flushPending() {
            if pending.count == 1 { payloads.append(Array(pending[0])) }
            if pending.count > 1 {
                // §5.7.1: the STAP-A NRI is the highest NRI of its NAL units.
                var stap: [UInt8] = [(pending.map { $0.first! & 0x60 }.max() ?? 0) | 24]
                for nal in pending { stap += [UInt8(nal.count >> 8), UInt8(nal.count & 0xFF)] + nal }
                payloads.append(stap)
            }
            pending = []
        }
        var pendingSize = 1
        for nal in nals {
            if nal.count > maxPayloadSize {
                flushPending()
                pendingSize = 1
                let header = nal.first!
                let body = nal.dropFirst()
                let chunk = maxPayloadSize - 2
                var start = body.startIndex
                while start < body.endIndex {
                    let end = min(start + chunk, body.endIndex)
                    let flags: UInt8 = (start == body.startIndex ? 0x80 : 0) | (end == body.endIndex ? 0x40 : 0)
                    payloads.append([header & 0xE0 | 28, flags | header & 0x1F] + body[start..<end])
                    start = end
                }
            } else {
                if pendingSize + 2 + nal.count > maxPayloadSize {
                    flushPending()
                    pendingSize = 1
                }
                pending.append(nal)
                pendingSize += 2 + nal.count
            }
        }
        flushPending()
        return payloads.enumerated().map { index, payload in
            defer { sequenceNumber &+= 1 }
            return RTPPacket(
                marker: index == payloads.count - 1,
                payloadType: payloadType,
                sequenceNumber: sequenceNumber,
                timestamp: timestamp,
                ssrc: ssrc,
                payload: payload
            )
        }
    }
}
