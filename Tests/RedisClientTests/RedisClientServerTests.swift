import RedisClient
import RedisWire
import TestSupport
import Testing

/// The client against a real redis-server 7.0 (one per suite): every command round trip, expiry, SCAN by prefix,
/// pipelining, error replies.
@Suite(.redisServerUnlessSkipped, .redisServer(), .serialized)
struct RedisClientServerTests {
    let client: RedisClient

    init() throws {
        client = try RedisClient(url: RedisServer.current.url)
    }

    @Test func pingAnswersPong() async throws {
        #expect(try await client.ping() == "PONG")
    }

    @Test func setGetDeleteRoundTrip() async throws {
        #expect(try await client.set("rt:a", to: "http://node-a:8080"))
        #expect(try await client.get("rt:a") == "http://node-a:8080")
        #expect(try await client.set("rt:a", to: "é ünïcode"))
        #expect(try await client.get("rt:a") == "é ünïcode")
        #expect(try await client.delete("rt:a", "rt:missing") == 1)
        #expect(try await client.get("rt:a") == nil)
        #expect(try await client.delete("rt:a") == 0)
    }

    @Test func setConditionsNXAndXX() async throws {
        #expect(try await client.set("nx:k", to: "first", condition: .ifAbsent))
        #expect(try await client.set("nx:k", to: "second", condition: .ifAbsent) == false)
        #expect(try await client.get("nx:k") == "first")
        #expect(try await client.set("nx:k", to: "third", condition: .ifPresent))
        #expect(try await client.get("nx:k") == "third")
        #expect(try await client.set("nx:absent", to: "x", condition: .ifPresent) == false)
        #expect(try await client.get("nx:absent") == nil)
        try await client.delete("nx:k")
    }

    @Test func keysExpireAfterTheirTTL() async throws {
        // 1 s: still there when read back on a loaded machine, gone 1.2 s later.
        #expect(try await client.set("ttl:px", to: "v", expiresAfter: .seconds(1)))
        #expect(try await client.set("ttl:pexpire", to: "v"))
        #expect(try await client.pexpire("ttl:pexpire", after: .seconds(1)))
        #expect(try await client.pexpire("ttl:missing", after: .seconds(1)) == false)
        #expect(try await client.get("ttl:px") == "v")
        #expect(try await client.get("ttl:pexpire") == "v")
        try await Task.sleep(for: .milliseconds(1200))
        #expect(try await client.get("ttl:px") == nil)
        #expect(try await client.get("ttl:pexpire") == nil)
    }

    @Test func scanWalksEveryKeyOfAPrefixOnly() async throws {
        let expected = (0..<250).map { "scan:p:\($0)" }.sorted()
        for key in expected { try await client.set(key, to: "1") }
        try await client.set("scan:q:0", to: "1")
        // Glob characters in the prefix match themselves only.
        try await client.set("scan:*:x", to: "1")
        #expect(try await client.keys(withPrefix: "scan:p:", count: 17) == expected)
        #expect(try await client.keys(withPrefix: "scan:*:") == ["scan:*:x"])
        #expect(try await client.keys(withPrefix: "scan:none:") == [])
        let step = try await client.scan(cursor: 0, match: "scan:p:*", count: 10)
        #expect(step.cursor != 0)
        #expect(step.keys.allSatisfy { $0.hasPrefix("scan:p:") })
        try await client.delete(expected + ["scan:q:0", "scan:*:x"])
    }

    @Test func concurrentCommandsArePipelinedOnOneConnectionAndAnsweredInOrder() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<200 {
                group.addTask {
                    try await client.set("pipe:\(i)", to: "value-\(i)")
                    #expect(try await client.get("pipe:\(i)") == "value-\(i)")
                }
            }
            try await group.waitForAll()
        }
        #expect(await client.connections == 1)
        #expect(try await client.delete((0..<200).map { "pipe:\($0)" }) == 200)
    }

    @Test func errorRepliesAreValuesOrThrownWithTheCommand() async throws {
        let unknown = try await client.send(RedisCommand("NOSUCHCMD", "x"))
        #expect(unknown.description.hasPrefix("(error) ERR unknown command 'NOSUCHCMD'"))
        #expect(try await client.send(RedisCommand("RPUSH", "err:list", "a")) == .integer(1))
        await #expect(
            throws: RedisClientError.server(
                command: "GET err:list",
                message: "WRONGTYPE Operation against a key holding the wrong kind of value"
            )
        ) {
            try await client.get("err:list")
        }
        // The connection is still in order after an error reply.
        #expect(try await client.ping() == "PONG")
        try await client.delete("err:list")
    }

    @Test func evalRunsAScriptAtomically() async throws {
        let reply = try await client.eval("return {KEYS[1], ARGV[1]}", keys: ["k"], arguments: ["a"])
        #expect(reply == .array([.bulk("k"), .bulk("a")]))
    }
}
