import RedisClient
import Testing

/// `redis://[[user]:password@]host[:port][/db]`: parts, defaults, and refusals that say why.
struct RedisURLTests {
    /// A URL and what it must parse to.
    struct Case: Sendable, CustomTestStringConvertible {
        var text: String
        var url: RedisURL
        var testDescription: String { text }
    }

    static let valid: [Case] = [
        Case(text: "redis://127.0.0.1", url: RedisURL(host: "127.0.0.1")),
        Case(text: "redis://localhost:6380", url: RedisURL(host: "localhost", port: 6380)),
        Case(text: "redis://localhost:6380/", url: RedisURL(host: "localhost", port: 6380)),
        Case(text: "redis://10.0.0.9:7000/3", url: RedisURL(host: "10.0.0.9", port: 7000, database: 3)),
        Case(text: "redis://:s3cret@cache", url: RedisURL(host: "cache", password: "s3cret")),
        Case(
            text: "REDIS://ops:pw@cache:1/0",
            url: RedisURL(host: "cache", port: 1, database: 0, username: "ops", password: "pw")
        ),
        Case(text: "redis://:p%40ss%3Aword@h", url: RedisURL(host: "h", password: "p@ss:word")),
        Case(text: "redis://:p@ss@h", url: RedisURL(host: "h", password: "p@ss")),
        Case(text: "redis://[::1]:6390/2", url: RedisURL(host: "::1", port: 6390, database: 2)),
        Case(text: "redis://[::1]", url: RedisURL(host: "::1")),
    ]

    @Test(arguments: valid)
    func parses(_ c: Case) throws {
        #expect(try RedisURL(parsing: c.text) == c.url)
    }

    @Test(arguments: [
        ("127.0.0.1:6379", "expected redis://host[:port][/db]"),
        ("http://h", "scheme must be redis://"),
        ("rediss://h", "TLS (rediss://) is not supported"),
        ("redis://", "no host"),
        ("redis://:pw@", "no host"),
        ("redis://h:0", "port '0' is not 1…65535"),
        ("redis://h:65536", "port '65536' is not 1…65535"),
        ("redis://h:+80", "port '+80' is not 1…65535"),
        ("redis://h:x", "port 'x' is not 1…65535"),
        ("redis://h/db1", "database 'db1' is not a number"),
        ("redis://h/-1", "database '-1' is not a number"),
        ("redis://pw@h", "user info needs ':' (redis://:password@host or redis://user:password@host)"),
        ("redis://:%zz@h", "bad percent-encoding in user info"),
        ("redis://h?db=1", "query and fragment are not supported"),
        ("redis://[::1", "unclosed '[' in host"),
    ])
    func refusesWithAReason(_ text: String, _ reason: String) {
        #expect(throws: RedisClientError.invalidURL(text, reason: reason)) { try RedisURL(parsing: text) }
    }

    @Test func descriptionMasksThePassword() throws {
        #expect(try RedisURL(parsing: "redis://ops:pw@cache:7000/3").description == "redis://ops:***@cache:7000/3")
        #expect(try RedisURL(parsing: "redis://:pw@cache").description == "redis://:***@cache:6379")
        #expect(try RedisURL(parsing: "redis://[::1]:7").description == "redis://[::1]:7")
    }
}
