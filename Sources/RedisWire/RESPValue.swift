/// One RESP2 value (https://redis.io/docs/latest/develop/reference/protocol-spec/#resp-protocol-description):
/// the five RESP2 types, with the null bulk string (`$-1`) and the null array (`*-1`) kept apart.
public enum RESPValue: Hashable, Sendable {
    /// `+OK\r\n`: a short status text without CR or LF.
    case simpleString(String)
    /// `-ERR message\r\n`: the server refused the command (the text starts with an error prefix such as `ERR`).
    case error(String)
    /// `:1000\r\n`: a signed 64-bit integer.
    case integer(Int64)
    /// `$5\r\nhello\r\n`: binary-safe bytes; nil is the null bulk string `$-1\r\n` (a missing key).
    case bulkString([UInt8]?)
    /// `*2\r\n…`: elements of any type; nil is the null array `*-1\r\n`.
    case array([RESPValue]?)
}

extension RESPValue {
    /// A bulk string of `text`'s UTF-8 bytes.
    public static func bulk(_ text: String) -> RESPValue { .bulkString(Array(text.utf8)) }

    /// The text of a simple string or bulk string (UTF-8, invalid sequences repaired); nil for other types.
    public var text: String? {
        switch self {
        case .simpleString(let text): text
        case .bulkString(let bytes?): String(decoding: bytes, as: UTF8.self)
        default: nil
        }
    }

    /// Whether this is the null bulk string or the null array.
    public var isNull: Bool { self == .bulkString(nil) || self == .array(nil) }
}

extension RESPValue: CustomStringConvertible {
    /// Short and redis-cli-like, for error messages: `OK`, `(error) ERR …`, `(integer) 1`, `"bytes"`, `(nil)`, `[…]`.
    public var description: String {
        switch self {
        case .simpleString(let text): text
        case .error(let text): "(error) \(text)"
        case .integer(let n): "(integer) \(n)"
        case .bulkString(nil), .array(nil): "(nil)"
        case .bulkString(let bytes?):
            bytes.count > 64
                ? String(decoding: bytes.prefix(64), as: UTF8.self).debugDescription + "… (\(bytes.count) bytes)"
                : String(decoding: bytes, as: UTF8.self).debugDescription
        case .array(let elements?): "[" + elements.map(\.description).joined(separator: ", ") + "]"
        }
    }
}
