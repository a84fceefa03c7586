import MediaCore
import RedisClient
import StreamRegistry
import TestSupport
import Testing

/// Registries of two "nodes" against a real redis-server: register, look up, list, conflicts, expiry, and Redis
/// killed and restarted under a running registry.
@Suite(.redisServerUnlessSkipped, .redisServer(), .serialized)
struct StreamRegistryRedisTests {
    /// A registry for `node` with a short TTL (1 s: refreshes every 333 ms, room for a loaded machine) and short
    /// client timeouts.
    static func registry(_ node: String, ttl: Duration = .seconds(1)) throws -> StreamRegistry {
        var client = RedisClient.Configuration(url: try RedisURL(parsing: try RedisServer.current.url))
        client.connectTimeout = .milliseconds(300)
        client.commandTimeout = .milliseconds(300)
        var configuration = StreamRegistry.Configuration(nodeURL: node)
        configuration.ttl = ttl
        return StreamRegistry(client: RedisClient(configuration: client), configuration: configuration)
    }

    /// Waits until `condition` holds, polling every 50 ms; false after `timeout`.
    static func eventually(
        within timeout: Duration = .seconds(5),
        _ condition: () async -> Bool
    ) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return await condition()
    }

    @Test func registerLookupListAndUnregister() async throws {
        let nodeA = try Self.registry("http://10.0.0.1:8080")
        let nodeB = try Self.registry("http://10.0.0.2:8080")
        let (k1, k2, k3) = (StreamKey("list-1")!, StreamKey("list-2")!, StreamKey("list-3")!)
        #expect(try await nodeA.register(k1) == .registered)
        #expect(try await nodeA.register(k2) == .registered)
        #expect(try await nodeB.register(k3) == .registered)
        // Registering again is harmless.
        #expect(try await nodeA.register(k1) == .registered)
        #expect(try await nodeB.lookup(k1) == "http://10.0.0.1:8080")
        #expect(try await nodeA.lookup(k3) == "http://10.0.0.2:8080")
        #expect(try await nodeA.lookup(StreamKey("nobody")!) == nil)
        #expect(try await nodeB.registrations() == ["http://10.0.0.1:8080": [k1, k2], "http://10.0.0.2:8080": [k3]])
        #expect(try await nodeA.unregister(k1))
        #expect(try await nodeA.lookup(k1) == nil)
        #expect(try await nodeA.unregister(k2))
        #expect(try await nodeB.unregister(k3))
        #expect(try await nodeA.registrations() == [:])
    }

    @Test func registrationsListManyKeysByNode() async throws {
        let nodes = [try Self.registry("http://n0:1"), try Self.registry("http://n1:1")]
        let keys = (0..<60).map { StreamKey("many-\($0)")! }
        for (i, key) in keys.enumerated() { try await nodes[i % 2].register(key) }
        let listed = try await nodes[0].registrations()
        #expect(listed["http://n0:1"] == keys.enumerated().filter { $0.offset % 2 == 0 }.map(\.element).sorted())
        #expect(listed["http://n1:1"] == keys.enumerated().filter { $0.offset % 2 == 1 }.map(\.element).sorted())
        for (i, key) in keys.enumerated() { #expect(try await nodes[i % 2].unregister(key)) }
    }

    @Test func aSecondNodeIsToldTheKeyIsHeldAndCannotRemoveIt() async throws {
        let nodeA = try Self.registry("http://a:1")
        let nodeB = try Self.registry("http://b:1")
        let key = StreamKey("contested")!
        #expect(try await nodeA.register(key) == .registered)
        #expect(try await nodeB.register(key) == .heldBy("http://a:1"))
        #expect(await nodeB.liveKeys[key].map { if case .conflict = $0 { true } else { false } } == true)
        // B's stream ends: A's entry stays.
        #expect(try await nodeB.unregister(key) == false)
        #expect(try await nodeB.lookup(key) == "http://a:1")
        #expect(try await nodeA.unregister(key))
    }

    @Test func entriesExpireWithoutRefreshAndLiveWhileRefreshed() async throws {
        let stale = try Self.registry("http://stale:1")
        let live = try Self.registry("http://live:1")
        let (gone, kept) = (StreamKey("expires")!, StreamKey("refreshed")!)
        try await stale.register(gone)  // Never refreshed: run() is not running, as if the node crashed.
        try await live.register(kept)
        let loop = Task { try await live.run() }
        try await Task.sleep(for: .milliseconds(2500))  // 2.5 TTLs.
        #expect(try await live.lookup(gone) == nil)
        #expect(try await live.lookup(kept) == "http://live:1")
        // Stopping the loop removes this node's entries.
        loop.cancel()
        try await loop.value
        #expect(try await stale.lookup(kept) == nil)
    }

    @Test func aWaitingNodeTakesTheKeyOnceTheHolderIsGone() async throws {
        let crashed = try Self.registry("http://crashed:1")
        let standby = try Self.registry("http://standby:1")
        let key = StreamKey("failover")!
        try await crashed.register(key)
        #expect(try await standby.register(key) == .heldBy("http://crashed:1"))
        let loop = Task { try await standby.run() }
        #expect(await Self.eventually { (try? await standby.lookup(key)) == "http://standby:1" })
        #expect(await standby.liveKeys[key].map { if case .held = $0 { true } else { false } } == true)
        loop.cancel()
        try await loop.value
    }

    @Test func aLateRefreshNeverStealsTheKeyAnotherNodeTookMeanwhile() async throws {
        let late = try Self.registry("http://late:1")
        let other = try Self.registry("http://other:1")
        let key = StreamKey("late-refresh")!
        try await late.register(key)
        // No refresh (as if the node stalled) until the entry expires and another node takes the key.
        #expect(await Self.eventually { (try? await other.lookup(key)) == .some(nil) })
        #expect(try await other.register(key) == .registered)
        // The stalled node's refreshes resume: they must find the other holder, not overwrite it (SET XX would).
        let loop = Task { try await late.run() }
        #expect(await Self.eventually { await Self.isConflict(late, key) })
        #expect(try await other.lookup(key) == "http://other:1")
        loop.cancel()
        try await loop.value
        // Nor does its shutdown remove the other node's entry.
        #expect(try await other.lookup(key) == "http://other:1")
        #expect(try await other.unregister(key))
    }

    /// Whether `registry` sees `key` as held by another node.
    static func isConflict(_ registry: StreamRegistry, _ key: StreamKey) async -> Bool {
        if case .conflict? = await registry.liveKeys[key] { return true }
        return false
    }

    @Test func redisKilledCallsFailClearlyThenKeysAreRegisteredAgainWhenItIsBack() async throws {
        let server = try RedisServer.current
        let node = try Self.registry("http://node:1")
        let (k1, k2) = (StreamKey("survivor-1")!, StreamKey("survivor-2")!)
        try await node.register(k1)
        try await node.register(k2)
        let loop = Task { try await node.run() }

        server.stop()
        // The refresh loop notices within an interval; calls then fail at once with the reason.
        #expect(await Self.eventually(within: .seconds(2)) { await node.isRedisDown })
        let start = ContinuousClock.now
        let error = await #expect(throws: StreamRegistryError.self) { try await node.lookup(k1) }
        #expect(ContinuousClock.now - start < .milliseconds(100))
        #expect(error.map { if case .redisUnavailable = $0 { true } else { false } } == true)
        #expect(error?.cause.isConnectionFailure == true)
        #expect(error?.description.contains("127.0.0.1:\(server.port)") == true)
        // A stream that starts meanwhile is registered when Redis is back.
        let k3 = StreamKey("survivor-3")!
        await #expect(throws: StreamRegistryError.self) { try await node.register(k3) }

        try server.restart()  // Empty: no persistence.
        #expect(await Self.eventually { await !node.isRedisDown })
        #expect(await Self.eventually { (try? await node.registrations()) == ["http://node:1": [k1, k2, k3]] })
        loop.cancel()
        try await loop.value
        #expect(try await node.registrations() == [:])  // Stopping removed this node's entries.
    }
}
