import HTTPClient
import Testing

/// The one URL parser: what the clients connect to and send, and how references resolve (RFC 3986 §3, §5.2).
@Suite struct HTTPLocationTests {
    /// One URL and what it reads to (nil host: refused).
    struct Case: Sendable, CustomTestStringConvertible {
        var url: String
        var host: String?
        var port = 80
        var target = "/"
        var secure = false
        var testDescription: String { url }
    }

    static let golden: [Case] = [
        Case(
            url: "http://127.0.0.1:8080/live/x/video.m3u8?_HLS_msn=3",
            host: "127.0.0.1",
            port: 8080,
            target: "/live/x/video.m3u8?_HLS_msn=3"
        ),
        Case(url: "http://h", host: "h"),
        Case(url: "http://h?x=1", host: "h", target: "/?x=1"),
        Case(url: "HTTP://H:2/whip/K", host: "H", port: 2, target: "/whip/K"),
        Case(url: "http://[::1]:9000/whip/v6", host: "::1", port: 9000, target: "/whip/v6"),
        Case(url: "http://[::1]/a#frag", host: "::1", target: "/a"),
        Case(url: "https://auth.example/hook", host: "auth.example", port: 443, target: "/hook", secure: true),
        Case(url: "ftp://x"),
        Case(url: "http://:80/"),
        Case(url: "http://h:99999/"),
        Case(url: "http://h:0/"),
        Case(url: "http://user@host/a"),
        Case(url: "http://[::1/a"),
        Case(url: "http://[::1]x/a"),
    ]

    @Test(arguments: golden) func readsOrRefuses(_ c: Case) {
        let location = HTTPLocation(c.url)
        #expect(location?.host == c.host)
        guard let location else { return }
        #expect(location.port == c.port && location.target == c.target && location.isSecure == c.secure)
    }

    @Test func hostFieldAndDescriptionBracketIPv6() throws {
        let v6 = try #require(HTTPLocation("http://[::1]:9000/w"))
        #expect(v6.authority == "[::1]:9000" && v6.description == "http://[::1]:9000/w")
        #expect(HTTPLocation("https://h/x")?.description == "https://h:443/x")
        #expect(v6.origin == "http://[::1]:9000" && HTTPLocation("HTTP://h/x?q")?.origin == "http://h:80")
    }

    @Test(arguments: [
        ("e/video/1.0.m4s", "http://b:8/live/x/e/video/1.0.m4s"), ("../y/a.ts", "http://b:8/live/y/a.ts"),
        ("/abs.m3u8", "http://b:8/abs.m3u8"), ("?q=1", "http://b:8/live/x/video.m3u8?q=1"),
        ("./z", "http://b:8/live/x/z"), ("http://h:81/z", "http://h:81/z"), ("https://s/z", "https://s:443/z"),
    ])
    func resolvesReferences(_ pair: (String, String)) throws {
        let base = try #require(HTTPLocation("http://b:8/live/x/video.m3u8?_HLS_msn=3"))
        #expect(base.resolving(pair.0)?.description == pair.1)
    }

    @Test func addsQueryItems() {
        #expect(HTTPLocation("http://h/p")?.addingQuery([("a", "1"), ("b", "2")]).target == "/p?a=1&b=2")
        #expect(HTTPLocation("http://h/p?x")?.addingQuery([("a", "1")]).target == "/p?x&a=1")
    }
}
