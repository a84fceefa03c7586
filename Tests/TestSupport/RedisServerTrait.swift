import Testing

/// `@Suite(.redisServer())`: one throwaway redis-server for the whole suite, killed after it; tests reach it as
/// `RedisServer.current`.
public struct RedisServerTrait: SuiteTrait, TestScoping {
    /// Extra `redis-server` arguments.
    public var arguments: [String]

    public var isRecursive: Bool { false }

    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let server = try RedisServer.start(arguments: arguments)
        defer { server.stop() }
        try await RedisServer.$suiteServer.withValue(server) { try await function() }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test or suite unless redis-server is missing and `SLUICE_SKIP_REDIS_TESTS=1` (then skips, saying why);
    /// a missing redis-server without the variable fails the suite when `.redisServer()` starts it.
    public static var redisServerUnlessSkipped: Self {
        .enabled(if: RedisServer.enabled, Comment(rawValue: RedisServer.skipReason))
    }
}

extension Trait where Self == RedisServerTrait {
    /// A redis-server for the suite, started with `arguments` added.
    public static func redisServer(_ arguments: [String] = []) -> Self { RedisServerTrait(arguments: arguments) }
}

extension RedisServer {
    /// The suite's server, set by `.redisServer()`.
    @TaskLocal static var suiteServer: RedisServer?

    /// The server of the running suite (`.redisServer()` on the suite).
    public static var current: RedisServer {
        get throws {
            guard let server = suiteServer else { throw Failure.didNotStart(port: 0, log: "no .redisServer() trait") }
            return server
        }
    }
}
