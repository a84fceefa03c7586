import RedisWire

/// The commands the cluster registry uses, typed (https://redis.io/docs/latest/commands/).
extension RedisClient {
    /// SET's NX / XX option: whether the key must be absent or present for the write to happen.
    public enum SetCondition: Sendable {
        /// Always write.
        case always
        /// NX: only when the key does not exist.
        case ifAbsent
        /// XX: only when the key exists.
        case ifPresent
    }

    /// `PING`: the server's `PONG`.
    public func ping() async throws(RedisClientError) -> String {
        let command = RedisCommand("PING")
        let reply = try await execute(command)
        guard case .simpleString(let text) = reply else { throw Self.unexpected(command, reply) }
        return text
    }

    /// `SET key value [PX ms] [NX|XX]`: whether the value was written (false when the condition was not met).
    @discardableResult
    public func set(
        _ key: String,
        to value: String,
        expiresAfter ttl: Duration? = nil,
        condition: SetCondition = .always
    ) async throws(RedisClientError) -> Bool {
        var arguments = [key, value]
        if let ttl { arguments += ["PX", String(ttl.redisMilliseconds)] }
        switch condition {
        case .always: break
        case .ifAbsent: arguments.append("NX")
        case .ifPresent: arguments.append("XX")
        }
        let command = RedisCommand("SET", arguments)
        let reply = try await execute(command)
        switch reply {
        case .simpleString("OK"): return true
        case .bulkString(nil): return false  // NX or XX not met
        default: throw Self.unexpected(command, reply)
        }
    }

    /// `GET key`: the value as UTF-8 text, nil when the key does not exist.
    public func get(_ key: String) async throws(RedisClientError) -> String? {
        let command = RedisCommand("GET", key)
        let reply = try await execute(command)
        switch reply {
        case .bulkString(nil): return nil
        case .bulkString(let bytes?): return String(decoding: bytes, as: UTF8.self)
        default: throw Self.unexpected(command, reply)
        }
    }

    /// `DEL key…`: how many of the keys existed and were removed.
    @discardableResult
    public func delete(_ keys: [String]) async throws(RedisClientError) -> Int {
        let command = RedisCommand("DEL", keys)
        return Int(try await integer(command))
    }

    /// `DEL key…`: how many of the keys existed and were removed.
    @discardableResult
    public func delete(_ keys: String...) async throws(RedisClientError) -> Int {
        try await delete(keys)
    }

    /// `PEXPIRE key ms`: whether the key existed (and now expires after `ttl`).
    @discardableResult
    public func pexpire(_ key: String, after ttl: Duration) async throws(RedisClientError) -> Bool {
        try await integer(RedisCommand("PEXPIRE", key, String(ttl.redisMilliseconds))) == 1
    }

    /// `EVAL script numkeys key… arg…`: the script's reply as sent (error replies thrown as `.server`).
    public func eval(_ script: String, keys: [String], arguments: [String]) async throws(RedisClientError) -> RESPValue
    {
        try await execute(RedisCommand("EVAL", [script, String(keys.count)] + keys + arguments))
    }

    /// A command answered by an integer.
    private func integer(_ command: RedisCommand) async throws(RedisClientError) -> Int64 {
        let reply = try await execute(command)
        guard case .integer(let n) = reply else { throw Self.unexpected(command, reply) }
        return n
    }

    /// The error for a reply type the command never answers with.
    static func unexpected(_ command: RedisCommand, _ reply: RESPValue) -> RedisClientError {
        .unexpectedReply(command: command.description, reply: reply.description)
    }
}

extension Duration {
    /// Whole milliseconds as PX and PEXPIRE take them: rounded up, at least 1 (they refuse 0 and fractions).
    public var redisMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return max(1, millis)
    }
}
