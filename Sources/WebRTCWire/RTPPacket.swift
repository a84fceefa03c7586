import MediaCore

/// RFC 3550 §5.1: an RTP packet (fixed header, CSRCs, optional header extension, payload, optional padding).
public struct RTPPacket: Equatable, Sendable {
    /// M bit: for video, the last packet of an access unit (RFC 6184 §5.1).
    public var marker: Bool
    /// 7-bit payload type negotiated in SDP.
    public var payloadType: UInt8
    /// 16-bit sequence number, wraps.
    public var sequenceNumber: UInt16
    /// Media clock (90 kHz for video, 48 kHz for Opus), wraps.
    public var timestamp: UInt32
    /// Synchronization source.
    public var ssrc: UInt32
    /// Contributing sources (0…15).
    public var csrcs: [UInt32]
    /// The header extension (X bit), if any.
    public var headerExtension: RTPHeaderExtension?
    /// The payload, without padding.
    public var payload: [UInt8]
    /// Padding bytes after the payload, the count byte included (0 = P bit clear).
    public var paddingLength: Int

    /// A packet to send.
    public init(
        marker: Bool = false,
        payloadType: UInt8,
        sequenceNumber: UInt16,
        timestamp: UInt32,
        ssrc: UInt32,
        csrcs: [UInt32] = [],
        headerExtension: RTPHeaderExtension? = nil,
        payload: [UInt8],
        paddingLength: Int = 0
    ) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.headerExtension = headerExtension
        self.payload = payload
        self.paddingLength = paddingLength
    }

    /// Parses one (already SRTP-unprotected) packet.
    public init(parsing bytes: [UInt8]) throws(WebRTCWireError) {
        guard let first = bytes.first else { throw .truncated(what: "RTP header", offset: 0, wanted: 1, available: 0) }
        guard first >> 6 == 2 else { throw .rtpBadVersion(first >> 6) }
        var reader = ByteReader(bytes, offset: 1)
        do throws(ByteReaderError) {
            let second = try reader.readUInt8()
            marker = second & 0x80 != 0
            payloadType = second & 0x7F
            sequenceNumber = try reader.readUInt16()
            timestamp = try reader.readUInt32()
            ssrc = try reader.readUInt32()
            csrcs = []
            for _ in 0..<Int(first & 0x0F) { csrcs.append(try reader.readUInt32()) }
            headerExtension = nil
            if first & 0x10 != 0 {
                let profile = try reader.readUInt16()
                let words = Int(try reader.readUInt16())
                headerExtension = RTPHeaderExtension(profile: profile, data: Array(try reader.read(count: words * 4)))
            }
        } catch {
            throw .truncated("RTP header", error)
        }
        paddingLength = 0
        if first & 0x20 != 0 {
            // §5.1: the last padding byte counts the padding, itself included.
            let count = Int(bytes[bytes.count - 1])
            guard count > 0, count <= reader.remaining else {
                throw .rtpBadField(field: "RTP padding length", value: count)
            }
            paddingLength = count
        }
        payload = Array(bytes[reader.offset..<(bytes.count - paddingLength)])
    }

    /// The wire bytes; padding bytes are zero with the count in the last byte.
    public func serialized() -> [UInt8] {
        var out = ByteWriter(capacity: 12 + payload.count + 4 * csrcs.count + (headerExtension?.data.count ?? 0) + 4)
        let p: UInt8 = paddingLength > 0 ? 0x20 : 0
        let x: UInt8 = headerExtension != nil ? 0x10 : 0
        out.writeUInt8(0x80 | p | x | UInt8(csrcs.count & 0x0F))
        out.writeUInt8((marker ? 0x80 : 0) | payloadType & 0x7F)
        out.writeUInt16(sequenceNumber)
        out.writeUInt32(timestamp)
        out.writeUInt32(ssrc)
        for csrc in csrcs.prefix(15) { out.writeUInt32(csrc) }
        if let headerExtension {
            out.writeUInt16(headerExtension.profile)
            out.writeUInt16(UInt16(headerExtension.data.count / 4))
            out.write(headerExtension.data)
        }
        out.write(payload)
        if paddingLength > 0 {
            out.write([UInt8](repeating: 0, count: paddingLength - 1))
            out.writeUInt8(UInt8(paddingLength))
        }
        return out.bytes
    }
}
