import Logging
import MediaCore
import RedisClient
import RedisWire

/// Carrying out the state machine's actions against Redis.
extension StreamRegistry {
    /// Runs `actions` in order, feeding each outcome back to the machine (and running what that returns).
    func perform(_ actions: [RegistrationStateMachine.Action]) async {
        for action in actions {
            switch action {
            case .register(let key):
                do {
                    let outcome = try await claim(key)
                    await perform(machine.registered(key, outcome, now: .now))
                } catch {
                    await perform(machine.failed(key, error, now: .now))
                }
            case .refresh(let key):
                do {
                    let outcome = try await renew(key)
                    await perform(machine.refreshed(key, outcome, now: .now))
                } catch {
                    await perform(machine.failed(key, error, now: .now))
                }
            case .release(let key):
                do {
                    try await release(key)
                } catch {
                    logger.warning(
                        "registry: could not remove the entry (it expires within the TTL)",
                        metadata: ["stream": "\(key)", "error": "\(error)"]
                    )
                }
            case .probe:
                do {
                    _ = try await client.ping()
                    downError = nil
                    await perform(machine.redisAnswered(now: .now))
                } catch {
                    await perform(machine.failed(nil, StreamRegistryError(error), now: .now))
                }
            case .reportConflict(let key, let holder):
                logger.warning(
                    "registry: the key is held by another node; not taking it (retrying while live here)",
                    metadata: ["stream": "\(key)", "holder": "\(holder)"]
                )
            case .reportTakenOver(let key):
                logger.notice(
                    "registry: registered to this node after the other node's entry expired",
                    metadata: ["stream": "\(key)"]
                )
            case .reportExpired(let key):
                logger.warning(
                    "registry: the entry of a live stream had expired; registering it again",
                    metadata: ["stream": "\(key)"]
                )
            case .reportRedisDown(let error):
                downError = error
                let every = machine.interval
                logger.error(
                    "registry: Redis down, calls fail until it answers",
                    metadata: ["probe_every": "\(every)", "error": "\(error.cause)"]
                )
            case .reportRedisUp(let downFor, let keys):
                downError = nil
                logger.notice(
                    "registry: Redis answers again; registering the live keys",
                    metadata: ["down_for": "\(downFor)", "keys": "\(keys)"]
                )
            }
        }
    }

    /// SET NX this node; when the key exists, who holds it (this node: a registration that outlived a Redis blip or
    /// a repeated start, renewed).
    func claim(_ key: StreamKey) async throws(StreamRegistryError) -> RegistrationOutcome {
        let entry = redisKey(key)
        let (node, ttl) = (configuration.nodeURL, configuration.ttl)
        for _ in 0..<2 {
            let set = try await call(key) { client throws(RedisClientError) in
                try await client.set(entry, to: node, expiresAfter: ttl, condition: .ifAbsent)
            }
            if set { return .registered }
            switch try await renew(key) {
            case .refreshed: return .registered
            case .heldBy(let holder): return .heldBy(holder)
            case .expired: continue  // Gone between the two commands: claim it again.
            }
        }
        return .heldBy(
            try await call(key) { client throws(RedisClientError) in try await client.get(entry) } ?? "unknown"
        )
    }

    /// Renews the key's TTL if this node holds it, and records where its stream stands (`positions`).
    func renew(_ key: StreamKey) async throws(StreamRegistryError) -> RefreshOutcome {
        let position = positions?(key)?.redisValue ?? ""
        let arguments = [
            configuration.nodeURL, String(configuration.ttl.redisMilliseconds), position,
            String(configuration.positionTTL.redisMilliseconds),
        ]
        let keys = [redisKey(key), positionKey(key)]
        let reply = try await call(key) { client throws(RedisClientError) in
            try await client.eval(Self.refreshScript, keys: keys, arguments: arguments)
        }
        switch reply {
        case .integer(1): return .refreshed
        case .bulkString(nil): return .expired
        case .bulkString(let holder?): return .heldBy(String(decoding: holder, as: UTF8.self))
        default:
            throw .redisFailed(.unexpectedReply(command: "EVAL refresh \(redisKey(key))", reply: reply.description))
        }
    }

    /// Deletes the key's entry if this node holds it; whether it did.
    @discardableResult
    func release(_ key: StreamKey) async throws(StreamRegistryError) -> Bool {
        let node = configuration.nodeURL
        let entry = redisKey(key)
        let reply = try await call(key) { client throws(RedisClientError) in
            try await client.eval(Self.releaseScript, keys: [entry], arguments: [node])
        }
        guard case .integer(let n) = reply else {
            throw .redisFailed(.unexpectedReply(command: "EVAL release \(redisKey(key))", reply: reply.description))
        }
        return n == 1
    }

    /// A Redis call that fails at once while Redis is down, and marks it down when it cannot be reached.
    func call<Output: Sendable>(
        _ key: StreamKey?,
        _ body: (RedisClient) async throws(RedisClientError) -> Output
    ) async throws(StreamRegistryError) -> Output {
        if let downError { throw downError }
        do {
            return try await body(client)
        } catch {
            let failure = StreamRegistryError(error)
            if case .redisUnavailable = failure { await perform(machine.failed(key, failure, now: .now)) }
            throw failure
        }
    }
}
