/// RFC 8489 §14.8: ERROR-CODE carries the class (hundreds) and number in two bytes, then a UTF-8 reason phrase.
public struct STUNErrorCode: Hashable, Sendable {
    /// 300…699.
    public var code: Int
    /// Human-readable reason phrase.
    public var reason: String

    /// An error code with its phrase.
    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// 400: the request was malformed.
    public static let badRequest = STUNErrorCode(code: 400, reason: "Bad Request")
    /// 401: missing or wrong MESSAGE-INTEGRITY.
    public static let unauthorized = STUNErrorCode(code: 401, reason: "Unauthorized")
    /// 420: a comprehension-required attribute was not understood.
    public static let unknownAttribute = STUNErrorCode(code: 420, reason: "Unknown Attribute")
    /// 487: RFC 8445 §7.3.1.1 ICE role conflict.
    public static let roleConflict = STUNErrorCode(code: 487, reason: "Role Conflict")

    /// The attribute value.
    func encoded() -> [UInt8] {
        [0, 0, UInt8((code / 100) & 0x07), UInt8(code % 100)] + Array(reason.utf8)
    }

    /// Reads an attribute value.
    init(decoding value: ArraySlice<UInt8>) throws(WebRTCWireError) {
        guard value.count >= 4 else { throw .stunBadAttribute(type: 0x0009, reason: "ERROR-CODE shorter than 4 bytes") }
        let base = value.startIndex
        let hundreds = Int(value[base + 2] & 0x07)
        let number = Int(value[base + 3])
        guard (3...6).contains(hundreds), number < 100 else {
            throw .stunBadAttribute(type: 0x0009, reason: "ERROR-CODE \(hundreds)/\(number) out of range")
        }
        code = hundreds * 100 + number
        reason = String(decoding: value.dropFirst(4), as: UTF8.self)
    }
}
