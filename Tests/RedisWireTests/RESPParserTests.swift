import RedisWire
import Testing

/// RESP2 replies (https://redis.io/docs/latest/develop/reference/protocol-spec/): one golden table decodes and
/// encodes, and every reply is also fed split at every byte boundary.
struct RESPParserTests {
    /// Every reply `parts` complete, calling `next()` after each part as a connection would.
    static func decodeAll(_ parts: [[UInt8]], limits: RESPParser.Limits = .init()) throws(RedisWireError) -> [RESPValue]
    {
        var parser = RESPParser(limits: limits)
        var values: [RESPValue] = []
        for part in parts {
            parser.append(part)
            while let value = try parser.next() { values.append(value) }
        }
        return values
    }

    @Test(arguments: RESPCase.all)
    func decodes(_ c: RESPCase) throws {
        var parser = RESPParser()
        parser.append(c.bytes)
        #expect(try parser.next() == c.value)
        #expect(try parser.next() == nil)
        #expect(parser.bufferedByteCount == 0)
    }

    @Test(arguments: RESPCase.all)
    func encodes(_ c: RESPCase) throws {
        #expect(try c.value.encoded() == c.bytes)
    }

    @Test(arguments: RESPCase.all)
    func decodesSplitAtEveryByteBoundary(_ c: RESPCase) throws {
        for parts in splits(c.bytes) {
            #expect(try Self.decodeAll(parts) == [c.value], "split \(parts.map(\.count))")
        }
    }

    @Test func partialReplyAnswersNilUntilItsLastByte() throws {
        let bytes = Array("*2\r\n$5\r\nhello\r\n:1\r\n".utf8)
        var parser = RESPParser()
        for byte in bytes.dropLast() {
            parser.append([byte])
            #expect(try parser.next() == nil)
        }
        parser.append([bytes.last!])
        #expect(try parser.next() == .array([.bulk("hello"), .integer(1)]))
    }

    @Test func pipelinedRepliesComeOutInOrderHoweverSplit() throws {
        let stream = RESPCase.all.flatMap(\.bytes)
        let values = RESPCase.all.map(\.value)
        #expect(try Self.decodeAll([stream]) == values)
        #expect(try Self.decodeAll(stream.map { [$0] }) == values)
        for cut in stride(from: 0, through: stream.count, by: 7) {
            #expect(try Self.decodeAll([Array(stream[..<cut]), Array(stream[cut...])]) == values)
        }
    }

    @Test func replyAfterManyOthersStillNamesItsOffset() throws {
        var parser = RESPParser()
        let good = Array(String(repeating: "+OK\r\n", count: 2000).utf8)
        parser.append(good)
        while try parser.next() != nil {}
        parser.append(Array("?\r\n".utf8))
        #expect(throws: RedisWireError.unknownType(byte: UInt8(ascii: "?"), offset: good.count)) { try parser.next() }
    }
}
