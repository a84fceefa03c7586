import MediaCore
import RedisClient
import StreamRegistry
import TestSupport
import Testing

/// Positions against a real redis-server: recorded with each refresh while the node holds the key, never by a node
/// that lost it, and gone after their TTL.
@Suite(.redisServerUnlessSkipped, .redisServer(), .serialized)
struct StreamRegistryPositionTests {
    static func position(_ msn: Int, node: String) -> StreamPosition {
        StreamPosition(
            nextMSN: msn,
            discontinuity: 2,
            epoch: "ep\(msn)",
            node: node,
            recordedAt: WallTime(millisecondsSince1970: 1_764_340_000_000)
        )
    }

    @Test func eachRefreshRecordsWhereTheHoldersStreamStands() async throws {
        let (a, b) = ("http://10.0.0.1:8080", "http://10.0.0.2:8080")
        let nodeA = try StreamRegistryRedisTests.registry(a)
        let nodeB = try StreamRegistryRedisTests.registry(b)
        let key = StreamKey("pos-refresh")!
        await nodeA.recordPositions(from: { $0 == key ? Self.position(7, node: a) : nil })
        await nodeB.recordPositions(from: { $0 == key ? Self.position(900, node: b) : nil })
        let services = [Task { try await nodeA.run() }, Task { try await nodeB.run() }]
        defer { for service in services { service.cancel() } }
        #expect(try await nodeA.register(key) == .registered)
        // Nothing until the first refresh (a node starting a stream must read the previous holder's first).
        #expect(try await nodeB.position(of: key) == nil)
        #expect(await StreamRegistryRedisTests.eventually { (try? await nodeB.position(of: key)) != nil })
        #expect(try await nodeB.position(of: key) == Self.position(7, node: a))
        // B takes the key and records its own position; A's refreshes find B holding it and never write A's again.
        _ = try await nodeB.takeOver(key)
        #expect(await StreamRegistryRedisTests.eventually { (try? await nodeA.position(of: key))?.node == b })
        try await Task.sleep(for: .milliseconds(800))
        #expect(try await nodeA.position(of: key) == Self.position(900, node: b))
        _ = try await nodeB.unregister(key)
    }

    @Test func aPositionIsGoneAfterItsTTL() async throws {
        var client = RedisClient.Configuration(url: try RedisURL(parsing: try RedisServer.current.url))
        client.commandTimeout = .milliseconds(300)
        var configuration = StreamRegistry.Configuration(nodeURL: "http://10.0.0.3:8080")
        configuration.ttl = .seconds(1)
        configuration.positionTTL = .milliseconds(1_200)
        let node = StreamRegistry(client: RedisClient(configuration: client), configuration: configuration)
        let key = StreamKey("pos-ttl")!
        await node.recordPositions(from: { _ in Self.position(3, node: "http://10.0.0.3:8080") })
        let service = Task { try await node.run() }
        #expect(try await node.register(key) == .registered)
        #expect(await StreamRegistryRedisTests.eventually { (try? await node.position(of: key)) != nil })
        // The stream ends (and the node stops refreshing): its position outlives it by the TTL, then expires.
        _ = try await node.unregister(key)
        service.cancel()
        #expect(try await node.position(of: key) != nil)
        #expect(
            await StreamRegistryRedisTests.eventually(within: .seconds(3)) {
                (try? await node.position(of: key)) == nil
            }
        )
    }
}
