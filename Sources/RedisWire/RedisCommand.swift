/// RESP2 "Sending commands to a Redis server"
/// (https://redis.io/docs/latest/develop/reference/protocol-spec/#sending-commands-to-a-redis-server): a client
/// sends a command as an array of bulk strings, its name first.
public struct RedisCommand: Hashable, Sendable, CustomStringConvertible {
    /// The name (`SET`) and then each argument, as bulk-string bytes.
    public var arguments: [[UInt8]]

    /// `name` and its arguments as UTF-8 text.
    public init(_ name: String, _ arguments: [String]) {
        self.arguments = [Array(name.utf8)] + arguments.map { Array($0.utf8) }
    }

    /// `name` and its arguments as UTF-8 text.
    public init(_ name: String, _ arguments: String...) {
        self.init(name, arguments)
    }

    /// The command name as given (`SET`).
    public var name: String { String(decoding: arguments.first ?? [], as: UTF8.self) }

    /// The command as the array of bulk strings it is sent as.
    public var value: RESPValue { .array(arguments.map { .bulkString($0) }) }

    /// The command's exact RESP2 bytes: `*<n>\r\n` then each argument as a bulk string.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16 + arguments.reduce(0) { $0 + $1.count + 16 })
        RESPValue.appendHeader(UInt8(ascii: "*"), Int64(arguments.count), to: &out)
        for argument in arguments { RESPValue.appendBulk(argument, to: &out) }
        return out
    }

    /// The name and the first argument (usually the key), for error messages; AUTH's arguments are secrets.
    public var description: String {
        guard arguments.count > 1, name.uppercased() != "AUTH" else { return name }
        return "\(name) \(String(decoding: arguments[1], as: UTF8.self))"
    }
}
