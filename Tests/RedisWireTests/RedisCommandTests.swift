import RedisWire
import Testing

/// RESP2 "Sending commands to a Redis server": an array of bulk strings, exact bytes for the commands the client
/// sends.
struct RedisCommandTests {
    /// One command and its exact bytes.
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var command: RedisCommand
        var bytes: String
        var description: String { name }
    }

    static let all: [Case] = [
        Case(name: "PING", command: RedisCommand("PING"), bytes: "*1\r\n$4\r\nPING\r\n"),
        Case(
            name: "SET PX NX",
            command: RedisCommand("SET", "sluice:stream:demo", "http://10.0.0.1:8080", "PX", "3000", "NX"),
            bytes:
                "*6\r\n$3\r\nSET\r\n$18\r\nsluice:stream:demo\r\n$20\r\nhttp://10.0.0.1:8080\r\n$2\r\nPX\r\n$4\r\n3000\r\n"
                + "$2\r\nNX\r\n"
        ),
        Case(name: "GET", command: RedisCommand("GET", "k"), bytes: "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"),
        Case(
            name: "empty argument",
            command: RedisCommand("SET", "k", ""),
            bytes: "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n"
        ),
        Case(
            name: "UTF-8 argument counts bytes",
            command: RedisCommand("GET", "\u{E9}t\u{E9}"),
            bytes: "*2\r\n$3\r\nGET\r\n$5\r\n\u{E9}t\u{E9}\r\n"
        ),
    ]

    @Test(arguments: all)
    func encodesAsAnArrayOfBulkStrings(_ c: Case) throws {
        #expect(c.command.encoded() == Array(c.bytes.utf8))
        // The same bytes as the generic value encoder, and they parse back to the command's value.
        #expect(try c.command.value.encoded() == Array(c.bytes.utf8))
        var parser = RESPParser()
        parser.append(Array(c.bytes.utf8))
        #expect(try parser.next() == c.command.value)
    }

    @Test func descriptionNamesTheKeyButHidesAuthArguments() {
        #expect(RedisCommand("SET", "sluice:stream:a", "http://x", "PX", "3000").description == "SET sluice:stream:a")
        #expect(RedisCommand("AUTH", "secret").description == "AUTH")
        #expect(RedisCommand("AUTH", "user", "secret").description == "AUTH")
        #expect(RedisCommand("PING").description == "PING")
    }
}
