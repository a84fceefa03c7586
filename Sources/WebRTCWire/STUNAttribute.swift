/// RFC 8489 §14 and RFC 8445 §16.1: the attributes ICE-lite reads and writes; the rest stay raw.
public enum STUNAttribute: Hashable, Sendable {
    /// §14.11 MAPPED-ADDRESS is not used; §14.2 XOR-MAPPED-ADDRESS (0x0020), stored un-XORed.
    case xorMappedAddress(TransportAddress)
    /// §14.3 USERNAME (0x0006): `remoteUfrag:localUfrag` in ICE.
    case username(String)
    /// §14.5 MESSAGE-INTEGRITY (0x0008): 20-byte HMAC-SHA1, as found on the wire.
    case messageIntegrity([UInt8])
    /// §14.8 ERROR-CODE (0x0009).
    case errorCode(STUNErrorCode)
    /// §14.14 SOFTWARE (0x8022).
    case software(String)
    /// §14.7 FINGERPRINT (0x8028): CRC-32 XOR 0x5354554E, as found on the wire.
    case fingerprint(UInt32)
    /// RFC 8445 §16.1 PRIORITY (0x0024).
    case priority(UInt32)
    /// RFC 8445 §16.1 USE-CANDIDATE (0x0025), empty.
    case useCandidate
    /// RFC 8445 §16.1 ICE-CONTROLLED (0x8029) with its tie-breaker.
    case iceControlled(UInt64)
    /// RFC 8445 §16.1 ICE-CONTROLLING (0x802A) with its tie-breaker.
    case iceControlling(UInt64)
    /// Any other attribute, value without padding.
    case other(type: UInt16, value: [UInt8])

    /// Wire type codes.
    public enum Code {
        public static let username: UInt16 = 0x0006
        public static let messageIntegrity: UInt16 = 0x0008
        public static let errorCode: UInt16 = 0x0009
        public static let xorMappedAddress: UInt16 = 0x0020
        public static let priority: UInt16 = 0x0024
        public static let useCandidate: UInt16 = 0x0025
        public static let software: UInt16 = 0x8022
        public static let fingerprint: UInt16 = 0x8028
        public static let iceControlled: UInt16 = 0x8029
        public static let iceControlling: UInt16 = 0x802A
    }

    /// The attribute type on the wire.
    public var type: UInt16 {
        switch self {
        case .xorMappedAddress: Code.xorMappedAddress
        case .username: Code.username
        case .messageIntegrity: Code.messageIntegrity
        case .errorCode: Code.errorCode
        case .software: Code.software
        case .fingerprint: Code.fingerprint
        case .priority: Code.priority
        case .useCandidate: Code.useCandidate
        case .iceControlled: Code.iceControlled
        case .iceControlling: Code.iceControlling
        case .other(let type, _): type
        }
    }

    /// The value bytes (no padding); XOR-MAPPED-ADDRESS mixes in the cookie and `transactionID`.
    func encodedValue(transactionID: STUNTransactionID) -> [UInt8] {
        switch self {
        case .xorMappedAddress(let address):
            let mask = STUNMessage.magicCookieBytes + transactionID.bytes
            let port = address.port ^ 0x2112
            return [0, address.isIPv4 ? 0x01 : 0x02, UInt8(port >> 8), UInt8(port & 0xFF)]
                + zip(address.ip, mask).map { $0 ^ $1 }
        case .username(let text), .software(let text): return Array(text.utf8)
        case .messageIntegrity(let mac): return mac
        case .errorCode(let error): return error.encoded()
        case .fingerprint(let value), .priority(let value): return be(UInt64(value), width: 4)
        case .useCandidate: return []
        case .iceControlled(let tieBreaker), .iceControlling(let tieBreaker): return be(tieBreaker, width: 8)
        case .other(_, let value): return value
        }
    }

    /// Reads one attribute value of wire `type`.
    static func decode(
        type: UInt16,
        value: ArraySlice<UInt8>,
        transactionID: STUNTransactionID
    ) throws(WebRTCWireError) -> STUNAttribute {
        func fixed(_ width: Int, _ name: String) throws(WebRTCWireError) -> UInt64 {
            guard value.count == width else {
                throw .stunBadAttribute(type: type, reason: "\(name) is \(value.count) bytes, expected \(width)")
            }
            return value.reduce(0) { $0 << 8 | UInt64($1) }
        }
        switch type {
        case Code.xorMappedAddress:
            let base = value.startIndex
            guard value.count >= 4 else { throw .stunBadAttribute(type: type, reason: "XOR-MAPPED-ADDRESS too short") }
            let family = value[base + 1]
            let length = family == 0x01 ? 4 : family == 0x02 ? 16 : 0
            guard length > 0, value.count == 4 + length else {
                throw .stunBadAttribute(type: type, reason: "family \(family) with \(value.count) bytes")
            }
            let port = (UInt16(value[base + 2]) << 8 | UInt16(value[base + 3])) ^ 0x2112
            let mask = STUNMessage.magicCookieBytes + transactionID.bytes
            let ip = zip(value.dropFirst(4), mask).map { $0 ^ $1 }
            return .xorMappedAddress(TransportAddress(ip: ip, port: port)!)
        case Code.username: return .username(String(decoding: value, as: UTF8.self))
        case Code.software: return .software(String(decoding: value, as: UTF8.self))
        case Code.messageIntegrity:
            guard value.count == 20 else {
                throw .stunBadAttribute(type: type, reason: "MESSAGE-INTEGRITY is \(value.count) bytes, expected 20")
            }
            return .messageIntegrity(Array(value))
        case Code.errorCode: return .errorCode(try STUNErrorCode(decoding: value))
        case Code.fingerprint: return .fingerprint(UInt32(try fixed(4, "FINGERPRINT")))
        case Code.priority: return .priority(UInt32(try fixed(4, "PRIORITY")))
        case Code.useCandidate:
            _ = try fixed(0, "USE-CANDIDATE")
            return .useCandidate
        case Code.iceControlled: return .iceControlled(try fixed(8, "ICE-CONTROLLED"))
        case Code.iceControlling: return .iceControlling(try fixed(8, "ICE-CONTROLLING"))
        default: return .other(type: type, value: Array(value))
        }
    }
}

/// Big-endian bytes of the low `width` bytes of `value`.
func be(_ value: UInt64, width: Int) -> [UInt8] {
    (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - $0))) }
}
