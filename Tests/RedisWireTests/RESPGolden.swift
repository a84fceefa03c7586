import RedisWire

/// One reply and its exact RESP2 bytes; the table drives decoding, encoding and the split tests.
struct RESPCase: Sendable, CustomStringConvertible {
    var name: String
    var bytes: [UInt8]
    var value: RESPValue
    var description: String { name }

    init(_ name: String, _ text: String, _ value: RESPValue) {
        self.name = name
        self.bytes = Array(text.utf8)
        self.value = value
    }

    /// Every RESP2 type, the two nulls, empties, binary data and nesting (examples from the RESP2 spec and from
    /// redis-server 7.0's replies to the client's commands).
    static let all: [RESPCase] = [
        RESPCase("simple string", "+OK\r\n", .simpleString("OK")),
        RESPCase("empty simple string", "+\r\n", .simpleString("")),
        RESPCase("PONG", "+PONG\r\n", .simpleString("PONG")),
        RESPCase("error", "-ERR unknown command 'FOO'\r\n", .error("ERR unknown command 'FOO'")),
        RESPCase(
            "WRONGTYPE error",
            "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
            .error("WRONGTYPE Operation against a key holding the wrong kind of value")
        ),
        RESPCase("integer zero", ":0\r\n", .integer(0)),
        RESPCase("integer", ":1000\r\n", .integer(1000)),
        RESPCase("negative integer", ":-1\r\n", .integer(-1)),
        RESPCase("Int64.max", ":9223372036854775807\r\n", .integer(.max)),
        RESPCase("Int64.min", ":-9223372036854775808\r\n", .integer(.min)),
        RESPCase("bulk string", "$5\r\nhello\r\n", .bulk("hello")),
        RESPCase("empty bulk string", "$0\r\n\r\n", .bulkString([])),
        RESPCase("bulk string holding CRLF", "$4\r\na\r\nb\r\n", .bulk("a\r\nb")),
        RESPCase("UTF-8 bulk string", "$2\r\n\u{E9}\r\n", .bulk("\u{E9}")),
        RESPCase("null bulk string", "$-1\r\n", .bulkString(nil)),
        RESPCase("empty array", "*0\r\n", .array([])),
        RESPCase("null array", "*-1\r\n", .array(nil)),
        RESPCase(
            "array of bulk strings",
            "*2\r\n$5\r\nhello\r\n$5\r\nworld\r\n",
            .array([.bulk("hello"), .bulk("world")])
        ),
        RESPCase(
            "mixed array",
            "*3\r\n:1\r\n+two\r\n-ERR three\r\n",
            .array([.integer(1), .simpleString("two"), .error("ERR three")])
        ),
        RESPCase(
            "array holding a null bulk string",
            "*3\r\n$3\r\nfoo\r\n$-1\r\n$3\r\nbar\r\n",
            .array([.bulk("foo"), .bulkString(nil), .bulk("bar")])
        ),
        RESPCase("array holding a null array", "*2\r\n*-1\r\n*0\r\n", .array([.array(nil), .array([])])),
        RESPCase(
            "SCAN reply",
            "*2\r\n$2\r\n17\r\n*2\r\n$15\r\nsluice:stream:a\r\n$15\r\nsluice:stream:b\r\n",
            .array([.bulk("17"), .array([.bulk("sluice:stream:a"), .bulk("sluice:stream:b")])])
        ),
        RESPCase(
            "nested arrays (spec example)",
            "*2\r\n*3\r\n:1\r\n:2\r\n:3\r\n*2\r\n+Hello\r\n-World\r\n",
            .array([
                .array([.integer(1), .integer(2), .integer(3)]), .array([.simpleString("Hello"), .error("World")]),
            ])
        ),
        RESPCase("deep nesting", "*1\r\n*1\r\n*1\r\n*1\r\n:7\r\n", .array([.array([.array([.array([.integer(7)])])])])),
    ]
}
