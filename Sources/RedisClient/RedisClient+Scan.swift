import RedisWire

/// Walking the keyspace by prefix with SCAN (https://redis.io/docs/latest/commands/scan/): no KEYS, which blocks the
/// server for the whole keyspace.
extension RedisClient {
    /// One `SCAN cursor [MATCH pattern] [COUNT n]` step: the next cursor (0 when the walk is over) and some keys.
    public func scan(
        cursor: UInt64,
        match pattern: String? = nil,
        count: Int? = nil
    ) async throws(RedisClientError) -> (cursor: UInt64, keys: [String]) {
        var arguments = [String(cursor)]
        if let pattern { arguments += ["MATCH", pattern] }
        if let count { arguments += ["COUNT", String(count)] }
        let command = RedisCommand("SCAN", arguments)
        let reply = try await execute(command)
        guard case .array(let parts?) = reply, parts.count == 2, let next = parts[0].text.flatMap(UInt64.init),
            case .array(let elements?) = parts[1]
        else { throw Self.unexpected(command, reply) }
        var keys: [String] = []
        for element in elements {
            guard let key = element.text else { throw Self.unexpected(command, reply) }
            keys.append(key)
        }
        return (next, keys)
    }

    /// Every key starting with `prefix`, sorted; SCAN may return a key twice, each is listed once.
    public func keys(withPrefix prefix: String, count: Int = 100) async throws(RedisClientError) -> [String] {
        let pattern = Self.globEscaped(prefix) + "*"
        var found = Set<String>()
        var cursor: UInt64 = 0
        repeat {
            let step = try await scan(cursor: cursor, match: pattern, count: count)
            found.formUnion(step.keys)
            cursor = step.cursor
        } while cursor != 0
        return found.sorted()
    }

    /// `text` with the glob-style pattern characters escaped, so it matches itself only.
    static func globEscaped(_ text: String) -> String {
        var out = ""
        for character in text {
            if "*?[]\\^".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }
}
