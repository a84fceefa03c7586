import TestSupport
import Testing

@testable import WHIPPublish

/// RFC 9725 §4.1 endpoint URLs: what `sluice publish` accepts, and how `Location` resolves against them.
@Suite struct WHIPEndpointTests {
    /// One URL and what it reads to (nil: refused).
    struct Case: Sendable, CustomStringConvertible {
        var url: String
        var host: String?
        var port = 80
        var target = ""
        var key = ""
        var description: String { url }
    }

    static let golden: [Case] = [
        Case(url: "http://127.0.0.1:8080/whip/demo", host: "127.0.0.1", port: 8080, target: "/whip/demo", key: "demo"),
        Case(url: "http://example.test/whip/k-1", host: "example.test", port: 80, target: "/whip/k-1", key: "k-1"),
        Case(url: "http://[::1]:9000/whip/v6", host: "::1", port: 9000, target: "/whip/v6", key: "v6"),
        Case(url: "http://h:1/edge/whip/key?x=1", host: "h", port: 1, target: "/edge/whip/key?x=1", key: "key"),
        Case(url: "HTTP://H:2/whip/K", host: "H", port: 2, target: "/whip/K", key: "K"),
        Case(url: "https://127.0.0.1:8443/whip/demo"),
        Case(url: "rtmp://127.0.0.1/live/demo"),
        Case(url: "http://127.0.0.1:8080/live/demo"),
        Case(url: "http://127.0.0.1:8080/whip/"),
        Case(url: "http://127.0.0.1:8080/whip/a/b"),
        Case(url: "http://127.0.0.1:99999/whip/a"),
        Case(url: "http://:80/whip/a"),
        Case(url: "http://user@host/whip/a"),
        Case(url: "http://[::1/whip/a"),
    ]

    @Test(arguments: golden) func readsOrRefusesEndpoint(_ c: Case) throws {
        guard let host = c.host else {
            #expect(throws: WHIPPublishError.self) { try WHIPEndpoint(c.url) }
            return
        }
        let endpoint = try WHIPEndpoint(c.url)
        #expect(endpoint.host == host)
        #expect(endpoint.port == c.port)
        #expect(endpoint.target == c.target)
        #expect(endpoint.streamKey == c.key)
    }

    @Test func httpsIsRefusedWithAReason() {
        #expect {
            try WHIPEndpoint("https://x/whip/k")
        } throws: { error in
            "\(error)".contains("https is not supported")
        }
    }

    @Test(arguments: [
        ("/whip/demo/abc", "http://127.0.0.1:8080/whip/demo/abc"),
        ("abc", "http://127.0.0.1:8080/whip/abc"),
        ("http://other:1/s/1", "http://other:1/s/1"),
    ])
    func locationResolvesAgainstTheEndpoint(_ pair: (String, String)) throws {
        #expect(try WHIPEndpoint("http://127.0.0.1:8080/whip/demo").resolve(pair.0) == pair.1)
    }

    @Test func deleteTargetIsThePathOfTheResource() {
        #expect(WHIPHTTPSignaling.target(of: "http://h:1/whip/k/s1") == "/whip/k/s1")
        #expect(WHIPHTTPSignaling.target(of: "http://h:1") == "/")
        #expect(WHIPHTTPSignaling.target(of: "/whip/k/s") == "/whip/k/s")
        #expect(WHIPHTTPSignaling.target(of: "nonsense") == nil)
    }

    /// Seeded: any key of URL-safe characters survives parse → description → parse.
    @Test func randomKeysAndPortsRoundTrip() throws {
        var random = SeededRandom(seed: 9725)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        for _ in 0..<200 {
            let key = String(
                (0..<Int.random(in: 1...24, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            )
            let port = Int.random(in: 1...65_535, using: &random)
            let endpoint = try WHIPEndpoint("http://127.0.0.1:\(port)/whip/\(key)")
            #expect(endpoint.streamKey == key)
            #expect(try WHIPEndpoint(endpoint.description) == endpoint)
        }
    }
}
