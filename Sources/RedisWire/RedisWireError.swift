/// Why bytes are not RESP2 (https://redis.io/docs/latest/develop/reference/protocol-spec/), or a value cannot be
/// written as RESP2; each case names the byte offset in the stream (from the parser's first byte) where it went wrong.
public enum RedisWireError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A reply starts with a byte that is none of `+ - : $ *`.
    case unknownType(byte: UInt8, offset: Int)
    /// An integer reply, bulk length or array count that is not a decimal 64-bit integer.
    case invalidInteger(line: String, offset: Int)
    /// A bulk length or array count below -1 (-1 alone means null).
    case invalidLength(Int64, offset: Int)
    /// A bulk string longer than the parser accepts.
    case bulkTooLong(length: Int64, limit: Int, offset: Int)
    /// An array with more elements than the parser accepts.
    case arrayTooLong(count: Int64, limit: Int, offset: Int)
    /// Arrays nested deeper than the parser accepts.
    case nestingTooDeep(limit: Int, offset: Int)
    /// A header line with no CRLF within the limit.
    case lineTooLong(limit: Int, offset: Int)
    /// A CR not followed by LF, an LF without CR in a line, or bulk data not followed by CRLF.
    case missingCRLF(offset: Int)
    /// A simple string or error to encode holds CR or LF, which RESP2 cannot carry in them.
    case newlineInSimpleString(String)

    public var description: String {
        switch self {
        case .unknownType(let byte, let offset):
            "RESP: unknown type byte 0x\(String(byte, radix: 16)) at offset \(offset) (expected + - : $ *)"
        case .invalidInteger(let line, let offset): "RESP: '\(line)' at offset \(offset) is not a 64-bit integer"
        case .invalidLength(let n, let offset): "RESP: length \(n) at offset \(offset) (only -1 may be negative)"
        case .bulkTooLong(let n, let limit, let offset):
            "RESP: bulk string of \(n) bytes at offset \(offset) (limit \(limit))"
        case .arrayTooLong(let n, let limit, let offset):
            "RESP: array of \(n) elements at offset \(offset) (limit \(limit))"
        case .nestingTooDeep(let limit, let offset): "RESP: arrays nested deeper than \(limit) at offset \(offset)"
        case .lineTooLong(let limit, let offset): "RESP: no CRLF within \(limit) bytes of offset \(offset)"
        case .missingCRLF(let offset): "RESP: CRLF expected at offset \(offset)"
        case .newlineInSimpleString(let text): "RESP: simple string \(text.debugDescription) holds CR or LF"
        }
    }
}
