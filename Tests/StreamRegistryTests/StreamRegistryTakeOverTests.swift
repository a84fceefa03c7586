import MediaCore
import RedisClient
import StreamRegistry
import TestSupport
import Testing

/// The newer publish wins, against a real redis-server: a node taking a key another node holds gets it at once and
/// is told whom it took it from; the old holder finds the new one at its next refresh and never removes its entry.
@Suite(.redisServerUnlessSkipped, .redisServer(), .serialized)
struct StreamRegistryTakeOverTests {
    @Test func newerPublishTakesTheKeyAndTheOldHolderLeavesItAlone() async throws {
        let nodeA = try StreamRegistryRedisTests.registry("http://10.0.0.1:8080")
        let nodeB = try StreamRegistryRedisTests.registry("http://10.0.0.2:8080")
        let key = StreamKey("takeover-1")!
        let refreshing = Task { try await nodeA.run() }
        defer { refreshing.cancel() }
        #expect(try await nodeA.register(key) == .registered)
        #expect(try await nodeB.takeOver(key) == "http://10.0.0.1:8080")
        #expect(try await nodeA.lookup(key) == "http://10.0.0.2:8080")
        // A's next refresh (every 333 ms) finds B and turns into a conflict instead of writing.
        let sawB = await StreamRegistryRedisTests.eventually {
            if case .conflict(let holder, _) = await nodeA.liveKeys[key] { return holder == "http://10.0.0.2:8080" }
            return false
        }
        #expect(sawB)
        #expect(try await nodeA.unregister(key) == false)
        #expect(try await nodeB.lookup(key) == "http://10.0.0.2:8080")
        // Taking a key nobody holds, or one's own, names nobody.
        #expect(try await nodeB.takeOver(key) == nil)
        #expect(try await nodeB.takeOver(StreamKey("takeover-free")!) == nil)
        #expect(try await nodeB.unregister(key))
        #expect(try await nodeB.unregister(StreamKey("takeover-free")!))
    }
}
