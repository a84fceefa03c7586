import FuzzSupport
import WebRTCWire

/// Compound RTCP (RFC 3550 §6, RFC 4585 §6, RFC 5104 §4.3.1): any datagram parses or throws; what parses serializes
/// to a compound that parses to the same packets (NACKs as the same set of sequence numbers, raw bodies and text
/// items up to the bytes they re-encode to) and settles: a second round trip gives the same bytes.
@main enum FuzzRTCPEntry {
    static func main() { FuzzDriver.run(fuzzRTCP) }
}

/// One libFuzzer input: one (already SRTCP-unprotected) compound datagram.
func fuzzRTCP(_ bytes: [UInt8]) {
    guard let packets = try? RTCPPacket.parseCompound(bytes) else { return }
    let wire = RTCPPacket.serializeCompound(packets)
    guard let again = try? RTCPPacket.parseCompound(wire) else { preconditionFailure("re-serialized RTCP does not parse") }
    precondition(again.count == packets.count, "RTCP round trip gave \(again.count) packets, not \(packets.count)")
    for (first, second) in zip(packets, again) {
        precondition(equivalent(first, second), "RTCP round trip changed \(first) into \(second)")
        if case .other = first { continue }
        precondition(PacketClass(classifying: first.serialized()) == .rtcp, "typed RTCP packet not demuxed as RTCP")
    }
    let settled = RTCPPacket.serializeCompound(again)
    guard let third = try? RTCPPacket.parseCompound(settled) else { preconditionFailure("second RTCP round trip failed") }
    precondition(RTCPPacket.serializeCompound(third) == settled, "RTCP serialization does not settle")
}

/// Equal, up to what serialization normalizes: NACK loss lists compare as sets, raw bodies gain zero padding,
/// text items longer than 255 bytes once re-encoded are cut.
func equivalent(_ a: RTCPPacket, _ b: RTCPPacket) -> Bool {
    switch (a, b) {
    case (.genericNACK(let x), .genericNACK(let y)):
        return x.senderSSRC == y.senderSSRC && x.mediaSSRC == y.mediaSSRC
            && Set(x.lostSequenceNumbers) == Set(y.lostSequenceNumbers)
    case (.other(let typeA, let countA, let bodyA), .other(let typeB, let countB, let bodyB)):
        return typeA == typeB && countA == countB && bodyB.starts(with: bodyA) && bodyB.dropFirst(bodyA.count).allSatisfy { $0 == 0 }
            && bodyB.count - bodyA.count < 4
    case (.sourceDescription(let x), .sourceDescription(let y)):
        return x.count == y.count
            && zip(x, y).allSatisfy { c, d in
                c.ssrc == d.ssrc && c.items.count == d.items.count
                    && zip(c.items, d.items).allSatisfy { $0.type == $1.type && sameText($0.text, $1.text) }
            }
    case (.bye(let x), .bye(let y)):
        return x.sources == y.sources && (x.reason == nil) == (y.reason == nil) && sameText(x.reason ?? "", y.reason ?? "")
    default:
        return a == b
    }
}

/// True when `b` is `a` re-encoded with the 255-byte item limit.
func sameText(_ a: String, _ b: String) -> Bool {
    a.utf8.count <= 255 ? a == b : String(decoding: Array(a.utf8.prefix(255)), as: UTF8.self) == b
}
