import RedisWire
import Testing

/// Bytes that are not RESP2 fail with a case naming what and where, and the parser stays failed.
struct RESPParserErrorTests {
    /// Bytes, the limits, and the error they must raise.
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var bytes: [UInt8]
        var limits = RESPParser.Limits()
        var error: RedisWireError
        var description: String { name }
    }

    static var small: RESPParser.Limits {
        var limits = RESPParser.Limits()
        limits.maxBulkLength = 8
        limits.maxArrayCount = 4
        limits.maxDepth = 3
        limits.maxLineLength = 16
        return limits
    }

    static let all: [Case] = [
        Case(name: "unknown type byte", bytes: Array("!oops\r\n".utf8), error: .unknownType(byte: 0x21, offset: 0)),
        Case(name: "RESP3 double", bytes: Array(",1.5\r\n".utf8), error: .unknownType(byte: 0x2C, offset: 0)),
        Case(
            name: "integer with letters",
            bytes: Array(":12a\r\n".utf8),
            error: .invalidInteger(line: "12a", offset: 0)
        ),
        Case(name: "empty integer", bytes: Array(":\r\n".utf8), error: .invalidInteger(line: "", offset: 0)),
        Case(name: "lone minus", bytes: Array(":-\r\n".utf8), error: .invalidInteger(line: "-", offset: 0)),
        Case(
            name: "integer overflow",
            bytes: Array(":9223372036854775808\r\n".utf8),
            error: .invalidInteger(line: "9223372036854775808", offset: 0)
        ),
        Case(name: "bulk length -2", bytes: Array("$-2\r\n".utf8), error: .invalidLength(-2, offset: 0)),
        Case(name: "array count -5", bytes: Array("*-5\r\n".utf8), error: .invalidLength(-5, offset: 0)),
        Case(name: "bulk data without CRLF", bytes: Array("$3\r\nabcXY".utf8), error: .missingCRLF(offset: 7)),
        Case(name: "CR without LF", bytes: Array("+OK\rX".utf8), error: .missingCRLF(offset: 3)),
        Case(name: "LF without CR", bytes: Array("+O\nK\r\n".utf8), error: .missingCRLF(offset: 2)),
        Case(
            name: "bulk over the limit",
            bytes: Array("$9\r\n".utf8),
            limits: small,
            error: .bulkTooLong(length: 9, limit: 8, offset: 0)
        ),
        Case(
            name: "array over the limit",
            bytes: Array("*5\r\n".utf8),
            limits: small,
            error: .arrayTooLong(count: 5, limit: 4, offset: 0)
        ),
        Case(
            name: "nesting over the limit",
            bytes: Array(String(repeating: "*1\r\n", count: 4).utf8),
            limits: small,
            error: .nestingTooDeep(limit: 3, offset: 16)
        ),
        Case(
            name: "line without CRLF over the limit",
            bytes: Array("+0123456789abcdefghij".utf8),
            limits: small,
            error: .lineTooLong(limit: 16, offset: 0)
        ),
        Case(
            name: "garbage after a good reply",
            bytes: Array("+OK\r\n\u{0}".utf8) + [0x0D, 0x0A],
            error: .unknownType(byte: 0, offset: 5)
        ),
    ]

    @Test(arguments: all)
    func failsWithContext(_ c: Case) {
        var parser = RESPParser(limits: c.limits)
        parser.append(c.bytes)
        #expect(throws: c.error) {
            while try parser.next() != nil {}
        }
        // Replies can no longer be matched to commands: the parser stays failed.
        #expect(throws: c.error) { try parser.next() }
    }

    @Test func errorsDescribeThemselves() {
        let error = RedisWireError.missingCRLF(offset: 7)
        #expect(error.description == "RESP: CRLF expected at offset 7")
        #expect(RedisWireError.unknownType(byte: 0x21, offset: 3).description.contains("0x21 at offset 3"))
    }

    @Test func simpleStringsWithNewlinesCannotBeEncoded() {
        #expect(throws: RedisWireError.newlineInSimpleString("a\nb")) { try RESPValue.simpleString("a\nb").encoded() }
        #expect(throws: RedisWireError.newlineInSimpleString("x\r")) { try RESPValue.error("x\r").encoded() }
    }
}
