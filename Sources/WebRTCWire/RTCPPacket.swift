import MediaCore

/// RFC 3550 §6.1 and RFC 4585 §6.1: one RTCP packet of a compound datagram, typed where Sluice reads or writes it.
public enum RTCPPacket: Equatable, Sendable {
    /// PT 200, §6.4.1.
    case senderReport(RTCPSenderReport)
    /// PT 201, §6.4.2.
    case receiverReport(RTCPReceiverReport)
    /// PT 202, §6.5.
    case sourceDescription([RTCPSourceDescriptionChunk])
    /// PT 203, §6.6.
    case bye(RTCPBye)
    /// PT 205 FMT 1, RFC 4585 §6.2.1.
    case genericNACK(RTCPGenericNACK)
    /// PT 206 FMT 1, RFC 4585 §6.3.1.
    case pictureLossIndication(senderSSRC: UInt32, mediaSSRC: UInt32)
    /// PT 206 FMT 4, RFC 5104 §4.3.1.
    case fullIntraRequest(RTCPFullIntraRequest)
    /// PT 206 FMT 15 "REMB", draft-alvestrand-rmcat-remb-03 §2.2.
    case receiverEstimatedMaxBitrate(RTCPReceiverEstimatedMaxBitrate)
    /// Anything else (APP, XR, transport-wide CC, a truncated REMB…): the count/FMT field and the body after the 4-byte header.
    case other(packetType: UInt8, count: UInt8, body: [UInt8])

    /// Packet type numbers.
    public enum PacketType {
        public static let senderReport: UInt8 = 200
        public static let receiverReport: UInt8 = 201
        public static let sourceDescription: UInt8 = 202
        public static let bye: UInt8 = 203
        public static let transportFeedback: UInt8 = 205
        public static let payloadFeedback: UInt8 = 206
    }

    /// Splits and parses a compound packet (§6.1); padding is honoured on any packet that sets P.
    public static func parseCompound(_ bytes: [UInt8]) throws(WebRTCWireError) -> [RTCPPacket] {
        var packets: [RTCPPacket] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else {
                throw .truncated(what: "RTCP header", offset: offset, wanted: 4, available: bytes.count - offset)
            }
            let first = bytes[offset]
            guard first >> 6 == 2 else { throw .rtpBadVersion(first >> 6) }
            let length = ((Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])) + 1) * 4
            guard bytes.count - offset >= length else {
                throw .truncated(what: "RTCP packet", offset: offset, wanted: length, available: bytes.count - offset)
            }
            var end = offset + length
            if first & 0x20 != 0 {
                let padding = Int(bytes[end - 1])
                guard padding > 0, padding <= length - 4 else {
                    throw .rtpBadField(field: "RTCP padding length", value: padding)
                }
                end -= padding
            }
            let body = Array(bytes[(offset + 4)..<end])
            packets.append(try parse(packetType: bytes[offset + 1], count: first & 0x1F, body: body, at: offset + 4))
            offset += length
        }
        return packets
    }

    /// Serializes packets back to back as one compound datagram (§6.1: the caller puts SR/RR first).
    public static func serializeCompound(_ packets: [RTCPPacket]) -> [UInt8] {
        packets.flatMap { $0.serialized() }
    }

    /// One packet's wire bytes (header included, no padding).
    public func serialized() -> [UInt8] {
        let (type, count, body): (UInt8, UInt8, [UInt8]) =
            switch self {
            case .senderReport(let sr): (PacketType.senderReport, UInt8(sr.reports.count), sr.encodedBody())
            case .receiverReport(let rr): (PacketType.receiverReport, UInt8(rr.reports.count), rr.encodedBody())
            case .sourceDescription(let chunks):
                (PacketType.sourceDescription, UInt8(chunks.count), chunks.flatMap { $0.encoded() })
            case .bye(let bye): (PacketType.bye, UInt8(bye.sources.count), bye.encodedBody())
            case .genericNACK(let nack): (PacketType.transportFeedback, 1, nack.encodedBody())
            case .pictureLossIndication(let sender, let media):
                (PacketType.payloadFeedback, 1, be(UInt64(sender), width: 4) + be(UInt64(media), width: 4))
            case .fullIntraRequest(let fir): (PacketType.payloadFeedback, 4, fir.encodedBody())
            case .receiverEstimatedMaxBitrate(let remb): (PacketType.payloadFeedback, 15, remb.encodedBody())
            case .other(let type, let count, let body):
                (type, count, body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4))
            }
        var out = ByteWriter(capacity: 4 + body.count)
        out.writeUInt8(0x80 | count & 0x1F)
        out.writeUInt8(type)
        // Length counts 32-bit words minus one; the header is the word subtracted.
        out.writeUInt16(UInt16(body.count / 4))
        out.write(body)
        return out.bytes
    }

    private static func parse(
        packetType: UInt8,
        count: UInt8,
        body: [UInt8],
        at base: Int
    ) throws(WebRTCWireError) -> RTCPPacket {
        var reader = ByteReader(body)
        do throws(ByteReaderError) {
            switch (packetType, count) {
            case (PacketType.senderReport, _):
                return .senderReport(try RTCPSenderReport(reading: &reader, reportCount: Int(count)))
            case (PacketType.receiverReport, _):
                return .receiverReport(try RTCPReceiverReport(reading: &reader, reportCount: Int(count)))
            case (PacketType.sourceDescription, _):
                return .sourceDescription(try RTCPSourceDescriptionChunk.read(from: &reader, count: Int(count)))
            case (PacketType.bye, _):
                return .bye(try RTCPBye(reading: &reader, sourceCount: Int(count)))
            case (PacketType.transportFeedback, 1):
                return .genericNACK(try RTCPGenericNACK(reading: &reader))
            case (PacketType.payloadFeedback, 1):
                return .pictureLossIndication(senderSSRC: try reader.readUInt32(), mediaSSRC: try reader.readUInt32())
            case (PacketType.payloadFeedback, 4):
                return .fullIntraRequest(try RTCPFullIntraRequest(reading: &reader))
            case (PacketType.payloadFeedback, 15):
                // Other application-layer feedback shares FMT 15; only a complete "REMB" message is decoded.
                guard let remb = try RTCPReceiverEstimatedMaxBitrate(reading: &reader) else {
                    return .other(packetType: packetType, count: count, body: body)
                }
                return .receiverEstimatedMaxBitrate(remb)
            default:
                return .other(packetType: packetType, count: count, body: body)
            }
        } catch {
            switch error {
            case .truncated(let offset, let wanted, let available):
                throw .truncated(
                    what: "RTCP packet type \(packetType)",
                    offset: base + offset,
                    wanted: wanted,
                    available: available
                )
            }
        }
    }
}
