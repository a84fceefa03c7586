import Logging
import MediaCore
import RedisClient
import RedisWire
import ServiceLifecycle

/// Which node holds which stream, in Redis: each node registers `<prefix><KEY>` → its node URL with a TTL while
/// the stream is live here, refreshes it, and removes it when the stream ends; any node can look a key up.
///
/// `register` never takes a key another node holds (the caller is told who holds it, and it is logged); `takeOver`
/// does, for a publish newer than the holder's. While Redis is down,
/// calls fail at once with `StreamRegistryError.redisUnavailable`; `run()` keeps probing and registers every live
/// key again when Redis returns. The timing decisions live in `RegistrationStateMachine`.
public actor StreamRegistry: Service {
    /// How this node appears in the registry.
    public nonisolated let configuration: Configuration
    let client: RedisClient
    let logger: Logger
    var machine: RegistrationStateMachine
    /// The error that marked Redis down, thrown by calls until it returns.
    var downError: StreamRegistryError?
    /// Where this node's streams stand, recorded at each refresh (nil: positions are not recorded).
    var positions: PositionSource?

    /// A registry for this node over `client` (one connection, shared by every call).
    public init(client: RedisClient, configuration: Configuration, logger: Logger = Logger(label: "sluice.registry")) {
        self.client = client
        self.configuration = configuration
        self.logger = logger
        self.machine = RegistrationStateMachine(interval: configuration.refreshInterval)
    }

    /// The keys live on this node and where each stands.
    public var liveKeys: [StreamKey: RegistrationStateMachine.KeyState] { machine.keys }

    /// Whether the registry currently considers Redis down.
    public var isRedisDown: Bool { machine.isRedisDown }

    /// A stream went live here: register it, and keep it registered until `unregister`. The key stays live even
    /// when this throws (Redis down): it is registered when Redis returns.
    @discardableResult
    public func register(_ key: StreamKey) async throws(StreamRegistryError) -> RegistrationOutcome {
        _ = machine.started(key, now: .now)
        if let downError { throw downError }
        do {
            let outcome = try await claim(key)
            await perform(machine.registered(key, outcome, now: .now))
            return outcome
        } catch {
            await perform(machine.failed(key, error, now: .now))
            throw error
        }
    }

    /// The stream ended here: stop refreshing it and delete its entry if this node still holds it (true when
    /// deleted). Never deletes another node's entry.
    @discardableResult
    public func unregister(_ key: StreamKey) async throws(StreamRegistryError) -> Bool {
        // The release is carried out here rather than as the machine's action, so the caller gets its result.
        _ = machine.ended(key)
        return try await release(key)
    }

    /// The node URL holding `key`, nil when no node does.
    public func lookup(_ key: StreamKey) async throws(StreamRegistryError) -> String? {
        let entry = redisKey(key)
        return try await call(nil) { client throws(RedisClientError) in try await client.get(entry) }
    }

    /// Every registration, by node URL: the keys each node holds (for `/api/cluster`). The GETs are pipelined.
    public func registrations() async throws(StreamRegistryError) -> [String: [StreamKey]] {
        let prefix = configuration.keyPrefix
        let entries = try await call(nil) { client throws(RedisClientError) in
            try await client.keys(withPrefix: prefix)
        }
        // Entries that are not stream keys are not ours to list.
        let keys = entries.compactMap { StreamKey(String($0.dropFirst(prefix.count))) }
        let holders = await withTaskGroup(of: (StreamKey, Result<String?, StreamRegistryError>).self) { group in
            for key in keys {
                group.addTask { (key, await self.holder(of: key)) }
            }
            var found: [StreamKey: Result<String?, StreamRegistryError>] = [:]
            for await (key, result) in group { found[key] = result }
            return found
        }
        var byNode: [String: [StreamKey]] = [:]
        for key in keys {
            // One that expired since the scan is skipped.
            guard let node = try holders[key]?.get() else { continue }
            byNode[node, default: []].append(key)
        }
        return byNode.mapValues { $0.sorted() }
    }

    /// `lookup` as a result, for the concurrent GETs of `registrations`.
    private func holder(of key: StreamKey) async -> Result<String?, StreamRegistryError> {
        do {
            return .success(try await lookup(key))
        } catch {
            return .failure(error)
        }
    }

    /// Refreshes live keys, retries conflicts and probes Redis while it is down, until cancelled or graceful
    /// shutdown; then deletes this node's entries (best effort: they expire anyway).
    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: await self.step())
            }
        }
        for key in machine.keys.keys.sorted() {
            _ = machine.ended(key)
            do {
                try await release(key)
            } catch {
                logger.warning(
                    "registry: could not remove the entry at shutdown (it expires within the TTL)",
                    metadata: ["stream": "\(key)", "error": "\(error)"]
                )
            }
        }
    }

    /// Carries out what is due; how long to wait before the next step.
    private func step() async -> Duration {
        await perform(machine.tick(now: .now))
        let interval = configuration.refreshInterval
        let wait = machine.nextDeadline.map { $0 - .now } ?? interval
        return min(max(wait, .milliseconds(10)), interval)
    }

    /// The Redis key of a stream's entry.
    func redisKey(_ key: StreamKey) -> String { configuration.keyPrefix + key.rawValue }
}
