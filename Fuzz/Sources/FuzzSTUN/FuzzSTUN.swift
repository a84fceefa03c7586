import FuzzSupport
import WebRTCWire

/// STUN (RFC 8489) and the RFC 7983 demux: any datagram parses or throws; a parsed message rebuilt and re-serialized,
/// plain or with MESSAGE-INTEGRITY and FINGERPRINT, parses back to itself and authenticates under its key only.
/// The first input byte says which checks the harness repairs before parsing (1 length, 2 integrity, 4 fingerprint),
/// so mutations reach the code behind a valid HMAC and CRC instead of stopping at the first mismatch.
@main enum FuzzSTUNEntry {
    static func main() { FuzzDriver.run(fuzzSTUN) }
}

/// The key the harness signs repaired inputs with (an ICE password).
let integrityKey = Array("sluicepwd0123456789abcdef".utf8)
/// The same password with its last character changed (appending a zero byte would not do: HMAC zero-pads keys).
let otherKey = Array("sluicepwd0123456789abcdeF".utf8)

/// One libFuzzer input: a repair-mode byte, then the datagram.
func fuzzSTUN(_ bytes: [UInt8]) {
    var input = FuzzInput(bytes)
    let mode = input.byte()
    var datagram = input.rest()
    let signed = repair(&datagram, mode: mode)
    let looksLikeSTUN = STUNMessage.looksLikeSTUN(datagram)
    precondition(!looksLikeSTUN || PacketClass(classifying: datagram) == .stun, "STUN-looking datagram not demuxed as STUN")
    guard let message = try? STUNMessage(parsing: datagram) else { return }
    precondition(datagram[0] >= 4 || looksLikeSTUN, "parsed STUN in the RFC 7983 STUN range fails looksLikeSTUN")
    if signed, message.messageIntegrity != nil {
        precondition(message.isAuthentic(key: integrityKey), "MESSAGE-INTEGRITY signed with the key does not verify")
        precondition(!message.isAuthentic(key: otherKey), "MESSAGE-INTEGRITY verifies under another key")
    }
    _ = (message.username, message.iceUsernameFragments, message.priority, message.useCandidate, message.errorCode)
    _ = (message.iceControlled, message.iceControlling, message.xorMappedAddress)
    let plain = message.attributes.filter { $0.type != STUNAttribute.Code.messageIntegrity && $0.type != STUNAttribute.Code.fingerprint }
    let rebuilt = STUNMessage(type: message.type, transactionID: message.transactionID, attributes: plain)
    precondition((try? STUNMessage(parsing: rebuilt.serialized())) == rebuilt, "plain STUN round trip changed the message")
    let sealed = rebuilt.serialized(integrityKey: integrityKey, fingerprint: true, padding: 0x20)
    guard let resealed = try? STUNMessage(parsing: sealed) else { preconditionFailure("sealed STUN does not parse") }
    precondition(Array(resealed.attributes.dropLast(2)) == plain, "sealed STUN round trip changed the attributes")
    precondition(resealed.isAuthentic(key: integrityKey), "our own MESSAGE-INTEGRITY does not verify")
    precondition(!resealed.isAuthentic(key: otherKey), "our MESSAGE-INTEGRITY verifies under another key")
    if message.type == .bindingRequest {
        // What the ICE-lite agent answers; the response must parse and echo the transaction.
        let source = TransportAddress("192.0.2.2:39655")!
        let response = STUNMessage.bindingSuccess(to: message, source: source).serialized(integrityKey: integrityKey, fingerprint: true)
        let parsed = try? STUNMessage(parsing: response)
        precondition(parsed?.transactionID == message.transactionID && parsed?.xorMappedAddress == source, "bad binding success")
        let error = STUNMessage.bindingError(to: message, error: .unauthorized).serialized(fingerprint: true)
        precondition((try? STUNMessage(parsing: error))?.errorCode == .unauthorized, "bad binding error")
    }
}

/// Applies the repairs `mode` asks for; true when a MESSAGE-INTEGRITY was re-signed with `integrityKey`.
func repair(_ bytes: inout [UInt8], mode: UInt8) -> Bool {
    guard bytes.count >= 20 else { return false }
    if mode & 1 != 0 {
        bytes[2] = UInt8(((bytes.count - 20) >> 8) & 0xFF)
        bytes[3] = UInt8((bytes.count - 20) & 0xFF)
    }
    var signed = false
    var offset = 20
    while offset + 4 <= bytes.count {
        let type = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
        let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        if mode & 2 != 0, !signed, type == STUNAttribute.Code.messageIntegrity, length == 20, offset + 24 <= bytes.count {
            // RFC 8489 §14.5: the HMAC covers the header with its length ending after this attribute.
            var covered = Array(bytes[..<offset])
            covered[2] = UInt8(((offset + 4) >> 8) & 0xFF)
            covered[3] = UInt8((offset + 4) & 0xFF)
            bytes.replaceSubrange((offset + 4)..<(offset + 24), with: HMACSHA1.authenticate(covered, key: integrityKey))
            signed = true
        }
        if mode & 4 != 0, type == STUNAttribute.Code.fingerprint, length == 4, offset + 8 == bytes.count {
            let crc = CRC32.checksum(bytes[..<offset]) ^ STUNMessage.fingerprintXor
            bytes.replaceSubrange((offset + 4)..<(offset + 8), with: (0..<4).map { UInt8((crc >> (24 - 8 * $0)) & 0xFF) })
        }
        offset += 4 + ((length + 3) & ~3)
    }
    return signed
}
