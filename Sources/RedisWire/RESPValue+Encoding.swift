/// RESP2 serialization (https://redis.io/docs/latest/develop/reference/protocol-spec/#resp-protocol-description):
/// a type byte, then a CRLF-terminated line, then for bulk strings the data and a CRLF, for arrays the elements.
extension RESPValue {
    /// The value's exact RESP2 bytes.
    public func encoded() throws(RedisWireError) -> [UInt8] {
        var out: [UInt8] = []
        try encode(into: &out)
        return out
    }

    /// Appends the value's RESP2 bytes to `out`.
    public func encode(into out: inout [UInt8]) throws(RedisWireError) {
        switch self {
        case .simpleString(let text): try Self.appendLine(UInt8(ascii: "+"), text, to: &out)
        case .error(let text): try Self.appendLine(UInt8(ascii: "-"), text, to: &out)
        case .integer(let n): Self.appendHeader(UInt8(ascii: ":"), n, to: &out)
        case .bulkString(nil): Self.appendHeader(UInt8(ascii: "$"), -1, to: &out)
        case .bulkString(let bytes?): Self.appendBulk(bytes, to: &out)
        case .array(nil): Self.appendHeader(UInt8(ascii: "*"), -1, to: &out)
        case .array(let elements?):
            Self.appendHeader(UInt8(ascii: "*"), Int64(elements.count), to: &out)
            for element in elements { try element.encode(into: &out) }
        }
    }

    /// `$<length>\r\n<bytes>\r\n`.
    static func appendBulk(_ bytes: [UInt8], to out: inout [UInt8]) {
        appendHeader(UInt8(ascii: "$"), Int64(bytes.count), to: &out)
        out += bytes
        out += [13, 10]
    }

    /// A type byte, a decimal integer and CRLF.
    static func appendHeader(_ type: UInt8, _ n: Int64, to out: inout [UInt8]) {
        out.append(type)
        out += Array(String(n).utf8)
        out += [13, 10]
    }

    /// A type byte, a text line and CRLF; the text may hold neither CR nor LF.
    private static func appendLine(_ type: UInt8, _ text: String, to out: inout [UInt8]) throws(RedisWireError) {
        let bytes = Array(text.utf8)
        guard !bytes.contains(13), !bytes.contains(10) else { throw .newlineInSimpleString(text) }
        out.append(type)
        out += bytes
        out += [13, 10]
    }
}
