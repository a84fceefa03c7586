import MediaCore
import RedisClient
import RedisWire

/// The newer publish wins: a stream that goes live here takes its key even when another node's entry is still
/// there (that node's encoder left it for this one, or that node died and its entry has not expired yet).
extension StreamRegistry {
    /// KEYS[1] entry, ARGV[1] this node, ARGV[2] TTL in ms: sets the entry to this node whoever held it, and answers
    /// the previous holder (nil when there was none). One script, so no other write slips in between.
    static let takeOverScript = """
        local previous = redis.call('GET', KEYS[1])
        redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
        return previous
        """

    /// Registers `key` to this node whoever holds it, and keeps it registered until `unregister`; the node it was
    /// taken from (nil: nobody else held it). That node finds another holder at its next refresh, logs it and never
    /// overwrites this entry (it retries a claim that only succeeds once this node's entry is gone).
    @discardableResult
    public func takeOver(_ key: StreamKey) async throws(StreamRegistryError) -> String? {
        _ = machine.started(key, now: .now)
        if let downError { throw downError }
        let entry = redisKey(key)
        let arguments = [configuration.nodeURL, String(configuration.ttl.redisMilliseconds)]
        let reply: RESPValue
        do {
            reply = try await call(key) { client throws(RedisClientError) in
                try await client.eval(Self.takeOverScript, keys: [entry], arguments: arguments)
            }
        } catch {
            await perform(machine.failed(key, error, now: .now))
            throw error
        }
        await perform(machine.registered(key, .registered, now: .now))
        switch reply {
        case .bulkString(let holder?):
            let previous = String(decoding: holder, as: UTF8.self)
            return previous == configuration.nodeURL ? nil : previous
        default:
            return nil
        }
    }
}
