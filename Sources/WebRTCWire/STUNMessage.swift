import MediaCore

/// RFC 8489 §5–6: a STUN message (20-byte header with magic cookie, then 4-byte-aligned TLV attributes).
public struct STUNMessage: Sendable {
    /// §5: 0x2112A442, the field that tells STUN from the RFC 3489 classic format.
    public static let magicCookie: UInt32 = 0x2112_A442
    static let magicCookieBytes: [UInt8] = [0x21, 0x12, 0xA4, 0x42]
    /// §14.7: FINGERPRINT is the CRC-32 XORed with "STUN".
    public static let fingerprintXor: UInt32 = 0x5354_554E

    /// Class and method.
    public var type: STUNMessageType
    /// The 96-bit transaction ID.
    public var transactionID: STUNTransactionID
    /// Attributes in wire order (as parsed: including MESSAGE-INTEGRITY and FINGERPRINT).
    public var attributes: [STUNAttribute]
    /// Header plus attributes up to MESSAGE-INTEGRITY, length patched to end after it: what the HMAC covered.
    private var integrityInput: [UInt8]?

    /// A message to send; MESSAGE-INTEGRITY and FINGERPRINT are added by `serialized`.
    public init(type: STUNMessageType, transactionID: STUNTransactionID, attributes: [STUNAttribute] = []) {
        self.type = type
        self.transactionID = transactionID
        self.attributes = attributes
        integrityInput = nil
    }

    /// True when the first bytes of a datagram look like STUN (RFC 7983 range plus the magic cookie).
    public static func looksLikeSTUN(_ bytes: some Collection<UInt8>) -> Bool {
        guard bytes.count >= 20, let first = bytes.first, first < 4 else { return false }
        return Array(bytes.dropFirst(4).prefix(4)) == magicCookieBytes
    }

    /// Parses one datagram; a present FINGERPRINT is verified (§14.7) and MESSAGE-INTEGRITY is kept for `isAuthentic`.
    public init(parsing bytes: [UInt8]) throws(WebRTCWireError) {
        guard bytes.count >= 20 else {
            throw .truncated(what: "STUN header", offset: 0, wanted: 20, available: bytes.count)
        }
        let rawType = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        guard rawType & 0xC000 == 0 else { throw .stunBadHeader(reason: "top two bits of the type are not zero") }
        guard Array(bytes[4..<8]) == Self.magicCookieBytes else { throw .stunBadHeader(reason: "no magic cookie") }
        let length = Int(bytes[2]) << 8 | Int(bytes[3])
        guard length % 4 == 0 else { throw .stunBadHeader(reason: "length \(length) is not a multiple of 4") }
        guard length + 20 == bytes.count else {
            throw .stunBadHeader(reason: "length \(length) but the datagram holds \(bytes.count - 20) attribute bytes")
        }
        type = STUNMessageType(rawValue: rawType)
        transactionID = STUNTransactionID(bytes: Array(bytes[8..<20]))!
        attributes = []
        integrityInput = nil
        var offset = 20
        var afterIntegrity = false
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else {
                throw .truncated(
                    what: "STUN attribute header",
                    offset: offset,
                    wanted: 4,
                    available: bytes.count - offset
                )
            }
            let attrType = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            let attrLength = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let padded = (attrLength + 3) & ~3
            guard bytes.count - offset - 4 >= padded else {
                throw .truncated(
                    what: "STUN attribute 0x\(String(attrType, radix: 16))",
                    offset: offset + 4,
                    wanted: padded,
                    available: bytes.count - offset - 4
                )
            }
            let value = bytes[(offset + 4)..<(offset + 4 + attrLength)]
            let attribute = try STUNAttribute.decode(type: attrType, value: value, transactionID: transactionID)
            switch attribute {
            case .fingerprint(let found):
                guard offset + 8 == bytes.count else {
                    throw .stunBadHeader(reason: "FINGERPRINT is not the last attribute")
                }
                let expected = CRC32.checksum(bytes[..<offset]) ^ Self.fingerprintXor
                guard expected == found else { throw .stunFingerprintMismatch(expected: expected, found: found) }
                attributes.append(attribute)
            case .messageIntegrity where !afterIntegrity:
                var input = Array(bytes[..<offset])
                let covered = offset + 24 - 20
                input[2] = UInt8(covered >> 8)
                input[3] = UInt8(covered & 0xFF)
                integrityInput = input
                afterIntegrity = true
                attributes.append(attribute)
            default:
                // §14.5: everything between MESSAGE-INTEGRITY and FINGERPRINT is ignored.
                if !afterIntegrity { attributes.append(attribute) }
            }
            offset += 4 + padded
        }
    }

    /// True when MESSAGE-INTEGRITY is present and matches HMAC-SHA1 under `key` (ICE: the receiver's ice-pwd bytes).
    public func isAuthentic(key: [UInt8]) -> Bool {
        guard let integrityInput, let mac = messageIntegrity else { return false }
        return constantTimeEqual(HMACSHA1.authenticate(integrityInput, key: key), mac)
    }

    /// The wire bytes; with `integrityKey` a MESSAGE-INTEGRITY is appended, with `fingerprint` a FINGERPRINT after it.
    /// `padding` fills attribute padding (RFC 5769 vectors use 0x20; any value is legal).
    public func serialized(integrityKey: [UInt8]? = nil, fingerprint: Bool = false, padding: UInt8 = 0) -> [UInt8] {
        var out = ByteWriter(capacity: 128)
        out.writeUInt16(type.rawValue)
        out.writeUInt16(0)
        out.write(Self.magicCookieBytes)
        out.write(transactionID.bytes)
        func append(_ attribute: STUNAttribute) {
            let value = attribute.encodedValue(transactionID: transactionID)
            out.writeUInt16(attribute.type)
            out.writeUInt16(UInt16(value.count))
            out.write(value)
            out.write([UInt8](repeating: padding, count: (4 - value.count % 4) % 4))
        }
        for attribute in attributes { append(attribute) }
        if let integrityKey {
            out.patchUInt(UInt64(out.count + 24 - 20), width: 2, at: 2)
            append(.messageIntegrity(HMACSHA1.authenticate(out.bytes, key: integrityKey)))
        }
        if fingerprint {
            out.patchUInt(UInt64(out.count + 8 - 20), width: 2, at: 2)
            append(.fingerprint(CRC32.checksum(out.bytes) ^ Self.fingerprintXor))
        }
        out.patchUInt(UInt64(out.count - 20), width: 2, at: 2)
        return out.bytes
    }

    private func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

extension STUNMessage: Equatable {
    /// Equal in type, transaction and attributes (how the bytes were authenticated does not matter).
    public static func == (lhs: STUNMessage, rhs: STUNMessage) -> Bool {
        lhs.type == rhs.type && lhs.transactionID == rhs.transactionID && lhs.attributes == rhs.attributes
    }
}

/// RFC 8489 §5: the 96-bit transaction ID that pairs a response with its request.
public struct STUNTransactionID: Hashable, Sendable, CustomStringConvertible {
    /// Exactly 12 bytes.
    public let bytes: [UInt8]

    /// Nil unless `bytes` has 12 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 12 else { return nil }
        self.bytes = bytes
    }

    /// A fresh ID from `generator` (pass `SystemRandomNumberGenerator` in production).
    public static func random(using generator: inout some RandomNumberGenerator) -> STUNTransactionID {
        STUNTransactionID(bytes: (0..<12).map { _ in UInt8.random(in: 0...255, using: &generator) })!
    }

    public var description: String { bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
}
