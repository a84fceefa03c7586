import LLHLSPackager
import Logging
import MediaCore
import RedisClient
import StreamHub
import StreamRegistry
import TestSupport
import Testing

@testable import SluiceApp

/// The gateway's side of the registry against a real redis-server: a source stream that goes live on the hub is
/// registered to this node and removed when its publication ends; ladder rungs (`key~name`) are never registered.
@Suite(.redisServerUnlessSkipped, .redisServer(), .serialized)
struct ClusterRegistrationServiceTests {
    static let node = "http://10.0.0.7:8080"

    static func registry() throws -> StreamRegistry {
        var client = RedisClient.Configuration(url: try RedisURL(parsing: try RedisServer.current.url))
        client.connectTimeout = .milliseconds(300)
        client.commandTimeout = .milliseconds(300)
        return StreamRegistry(client: RedisClient(configuration: client), configuration: .init(nodeURL: node))
    }

    /// The service for `hub` and `registry`, with a packager of `hub` that is not run unless a test runs it.
    static func service(
        hub: StreamHub,
        registry: StreamRegistry,
        packager: LLHLSPackager? = nil
    ) -> ClusterRegistrationService {
        let logger = Logger(label: "test")
        let packager = packager ?? LLHLSPackager(hub: hub, logger: logger)
        return ClusterRegistrationService(hub: hub, registry: registry, packager: packager, logger: logger)
    }

    /// Polls `condition` every 50 ms for up to 5 s.
    static func eventually(_ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return await condition()
    }

    @Test func sourceStreamIsRegisteredWhileLiveAndItsRungsNever() async throws {
        let hub = StreamHub()
        let registry = try Self.registry()
        let service = Self.service(hub: hub, registry: registry)
        let running = Task { try await service.run() }
        defer { running.cancel() }
        let source = StreamKey("cluster-cam")!
        let rung = source.rendition("480p")
        // The rung is announced first: by the time the source is registered, it was seen and left out.
        let ladder = try hub.publish(key: rung, origin: "ladder", role: .derived)
        let publication = try hub.publish(key: source, origin: "rtmp://127.0.0.1:5000")
        #expect(await Self.eventually { (try? await registry.lookup(source)) == Self.node })
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await registry.lookup(rung) == nil)
        #expect(await registry.liveKeys.keys.sorted() == [source])
        ladder.end()
        publication.end()
        #expect(await Self.eventually { (try? await registry.lookup(source)) == .some(nil) })
    }

    @Test func keyPublishedAgainRightAfterItEndedStaysRegistered() async throws {
        let hub = StreamHub()
        let registry = try Self.registry()
        let service = Self.service(hub: hub, registry: registry)
        let running = Task { try await service.run() }
        defer { running.cancel() }
        let key = StreamKey("cluster-again")!
        let first = try hub.publish(key: key, origin: "rtmp://127.0.0.1:5000")
        #expect(await Self.eventually { (try? await registry.lookup(key)) == Self.node })
        // The encoder reconnects at once: the first publication's end and the second's start reach the service
        // together; the end must not remove the new publication's entry.
        first.end()
        let second = try hub.publish(key: key, origin: "rtmp://127.0.0.1:5001")
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(try await registry.lookup(key) == Self.node)
        #expect(await registry.liveKeys.keys.sorted() == [key])
        second.end()
        #expect(await Self.eventually { (try? await registry.lookup(key)) == .some(nil) })
    }

    @Test func streamWhoseEncoderMovedEndsHereEarlyOnlyOnceNobodyPublishesHere() async throws {
        // The air outlives its publisher by a minute here (dark: no slate maker in a unit test), as with the slate.
        var onAir = OnAirConfiguration()
        onAir.slate = false
        onAir.grace = .seconds(60)
        let hub = StreamHub(onAir: onAir)
        let packager = LLHLSPackager(hub: hub, logger: Logger(label: "test"))
        let packaging = Task { await packager.run() }
        defer { packaging.cancel() }
        let registry = try Self.registry()
        let running = Task { try await Self.service(hub: hub, registry: registry, packager: packager).run() }
        defer { running.cancel() }
        let other = StreamRegistry(
            client: RedisClient(configuration: .init(url: try RedisURL(parsing: try RedisServer.current.url))),
            configuration: .init(nodeURL: "http://10.0.0.8:8080")
        )
        // The other node keeps its entry fresh, as a live owner does.
        let refreshing = Task { try await other.run() }
        defer { refreshing.cancel() }
        let key = StreamKey("cluster-moved")!
        let publication = try hub.publish(key: key, origin: "rtmp://127.0.0.1:5000")
        #expect(
            await Self.eventually { (try? await registry.lookup(key)) == Self.node && packager.stream(for: key) != nil }
        )
        // Another node takes the key while the publisher is still here: this node keeps serving it.
        _ = try await other.takeOver(key)
        try await Task.sleep(for: .milliseconds(2_500))
        #expect(packager.stream(for: key) != nil && hub.publication(for: key) != nil)
        // The publisher leaves (the encoder moved): its air and stream end here at the next check, not after a minute.
        publication.end()
        #expect(await Self.eventually { packager.stream(for: key) == nil && hub.publication(for: key) == nil })
        #expect(try await registry.lookup(key) == "http://10.0.0.8:8080")
        _ = try await other.unregister(key)
    }
}
