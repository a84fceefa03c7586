import Foundation
import RedisClient
import TestSupport
import Testing

/// Connection trouble against a real redis-server: refused, frozen (per-command timeout), killed and restarted,
/// AUTH and SELECT from the URL. Each case fails with a clear error and the client reconnects on the next call.
@Suite(.redisServerUnlessSkipped, .redisServer(["--requirepass", "s3cret"]), .serialized)
struct RedisClientFailureTests {
    /// A client with short timeouts for `url`.
    static func client(_ url: String) throws -> RedisClient {
        var configuration = RedisClient.Configuration(url: try RedisURL(parsing: url))
        configuration.connectTimeout = .milliseconds(500)
        configuration.commandTimeout = .milliseconds(300)
        return RedisClient(configuration: configuration)
    }

    /// `redis://:s3cret@127.0.0.1:<port>` plus `path`.
    static func url(password: String = "s3cret", path: String = "") throws -> String {
        "redis://:\(password)@127.0.0.1:\(try RedisServer.current.port)\(path)"
    }

    @Test func refusedConnectFailsFastNamingTheEndpoint() async throws {
        let port = ExternalTool.freePort()
        let client = try Self.client("redis://127.0.0.1:\(port)")
        let start = ContinuousClock.now
        let error = await #expect(throws: RedisClientError.self) { try await client.ping() }
        #expect(ContinuousClock.now - start < .milliseconds(500))
        guard case .connectFailed(let endpoint, _)? = error else {
            Issue.record("not connectFailed: \(String(describing: error))")
            return
        }
        #expect(endpoint == "127.0.0.1:\(port)")
        #expect(error?.isConnectionFailure == true)
    }

    @Test func passwordAndDatabaseFromTheURL() async throws {
        let db3 = try Self.client(try Self.url(path: "/3"))
        let db0 = try Self.client(try Self.url())
        try await db3.set("auth:k", to: "in db 3")
        #expect(try await db3.get("auth:k") == "in db 3")
        #expect(try await db0.get("auth:k") == nil)
        try await db3.delete("auth:k")

        let wrong = try Self.client(try Self.url(password: "nope"))
        let error = await #expect(throws: RedisClientError.self) { try await wrong.ping() }
        guard case .connectFailed(_, let reason)? = error else {
            Issue.record("not connectFailed: \(String(describing: error))")
            return
        }
        #expect(reason.contains("AUTH answered (error) WRONGPASS"))

        let none = try Self.client("redis://127.0.0.1:\(try RedisServer.current.port)")
        await #expect(throws: RedisClientError.server(command: "PING", message: "NOAUTH Authentication required.")) {
            try await none.ping()
        }
    }

    @Test func frozenServerTimesOutEachCommandThenTheClientReconnects() async throws {
        let server = try RedisServer.current
        let client = try Self.client(try Self.url())
        #expect(try await client.ping() == "PONG")
        server.pause()
        defer { server.resume() }
        let start = ContinuousClock.now
        // Two pipelined commands: the first times out, the second fails with the reason, not a hang.
        let first = Task { try await client.ping() }
        try await Task.sleep(for: .milliseconds(50))
        let second = Task { try await client.get("frozen:k") }
        let firstError = await #expect(throws: RedisClientError.self) { try await first.value }
        let secondError = await #expect(throws: RedisClientError.self) { try await second.value }
        #expect(ContinuousClock.now - start < .seconds(2))
        #expect(
            firstError == .timedOut(command: "PING", endpoint: "127.0.0.1:\(server.port)", after: .milliseconds(300))
        )
        #expect(secondError?.isConnectionFailure == true)
        server.resume()
        #expect(try await client.ping() == "PONG")
        #expect(await client.connections == 2)
    }

    @Test func killedServerFailsCallsUntilItIsBackOnTheSamePort() async throws {
        let server = try RedisServer.current
        let client = try Self.client(try Self.url())
        try await client.set("kill:k", to: "v")
        server.stop()
        let error = await #expect(throws: RedisClientError.self) { try await client.get("kill:k") }
        #expect(error?.isConnectionFailure == true)
        // Still down: the next call tries again and fails fast.
        await #expect(throws: RedisClientError.self) { try await client.ping() }
        try server.restart()
        #expect(try await client.ping() == "PONG")
        #expect(try await client.get("kill:k") == nil)  // No persistence: a restarted server is empty.
    }
}
