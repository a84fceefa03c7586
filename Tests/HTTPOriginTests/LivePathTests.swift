import Testing

@testable import HTTPOrigin

/// `LivePath`, the fast path's byte-level reading of live request targets: a golden table, and random targets read
/// the same as the `String`-splitting rules it replaced (and as telemetry's `RequestTarget`).
@Suite("Live path parsing")
struct LivePathTests {
    /// One golden case: a target and what it parses to (nil: not a live path).
    struct Case: Sendable, CustomTestStringConvertible {
        let target: String
        let parsed: LivePath?
        var testDescription: String { target }
    }

    static func live(
        _ key: String,
        _ resource: LivePath.Resource,
        token: Substring? = nil,
        path: Substring,
        query: Substring = ""
    ) -> LivePath {
        LivePath(token: token, key: key, resource: resource, path: path, query: query)
    }

    static let golden: [Case] = [
        Case(
            target: "/live/demo/video.m3u8",
            parsed: live("demo", .playlist(rendition: "video"), path: "/live/demo/video.m3u8")
        ),
        Case(
            target: "/live/demo/audio.m3u8?_HLS_msn=12&_HLS_part=3",
            parsed: live(
                "demo",
                .playlist(rendition: "audio"),
                path: "/live/demo/audio.m3u8",
                query: "_HLS_msn=12&_HLS_part=3"
            )
        ),
        Case(
            target: "/live/demo/index.m3u8",
            parsed: live("demo", .playlist(rendition: "index"), path: "/live/demo/index.m3u8")
        ),
        Case(
            target: "/live/k/e1/video/12.3.m4s",
            parsed: live(
                "k",
                .media(epoch: "e1", rendition: "video", file: "12.3.m4s"),
                path: "/live/k/e1/video/12.3.m4s"
            )
        ),
        Case(
            target: "/t/99-ab/live/k/v.m3u8?x=1",
            parsed: live("k", .playlist(rendition: "v"), token: "99-ab", path: "/t/99-ab/live/k/v.m3u8", query: "x=1")
        ),
        Case(
            target: "/t/tok/live/k/e/a/init-0.mp4",
            parsed: live(
                "k",
                .media(epoch: "e", rendition: "a", file: "init-0.mp4"),
                token: "tok",
                path: "/t/tok/live/k/e/a/init-0.mp4"
            )
        ),
        Case(
            target: "/live/k/v.m3u8?a/b",
            parsed: live("k", .playlist(rendition: "v"), path: "/live/k/v.m3u8", query: "a/b")
        ),
        Case(target: "/live/k/.m3u8", parsed: nil),
        Case(target: "/live/k/v.m3u", parsed: nil),
        Case(target: "/live/k", parsed: nil),
        Case(target: "/live/k/e/v", parsed: nil),
        Case(target: "/live/k/e/v/f/g", parsed: nil),
        Case(target: "/live//v.m3u8", parsed: nil),
        Case(target: "/live/k/v.m3u8/", parsed: nil),
        Case(target: "/live/bad%20key/v.m3u8", parsed: nil),
        Case(target: "/live/k/v.m3u8?_HLS_msn=1+2", parsed: nil),
        Case(target: "live/k/v.m3u8", parsed: nil),
        Case(target: "/t/live/k/v.m3u8", parsed: nil),
        Case(target: "/t//live/k/v.m3u8", parsed: nil),
        Case(target: "/x/tok/live/k/v.m3u8", parsed: nil),
        Case(target: "/api/streams", parsed: nil),
        Case(target: "", parsed: nil),
        Case(
            target: "/live/ключ/видео.m3u8",
            parsed: live("ключ", .playlist(rendition: "видео"), path: "/live/ключ/видео.m3u8")
        ),
    ]

    @Test(arguments: golden) func parses(_ c: Case) {
        #expect(LivePath.parse(c.target) == c.parsed)
    }

    @Test func directivesKeepOnlyTheHLSParameters() {
        let path = LivePath.parse("/live/k/v.m3u8?a=1&_HLS_msn=4&&_HLS_skip&_HLS_part=x=y&_HLS_msnX=1")
        #expect(path?.directives.map { "\($0.0)=\($0.1)" } == ["_HLS_msn=4", "_HLS_skip=", "_HLS_part=x=y"])
    }

    /// The rules `LiveFastPath.route` had before `LivePath` (bare `/live/` only): key and what is asked.
    static func reference(_ full: String) -> (key: String, resource: LivePath.Resource, query: String)? {
        guard full.hasPrefix("/live/"), !full.contains("%"), !full.contains("+") else { return nil }
        let split = full.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let query = split.count > 1 ? String(split[1]) : ""
        let parts = split[0].split(separator: "/", omittingEmptySubsequences: false).dropFirst(2)
        guard parts.allSatisfy({ !$0.isEmpty }), let key = parts.first else { return nil }
        switch parts.count {
        case 2:
            let name = parts[parts.startIndex + 1]
            guard name.hasSuffix(".m3u8"), name.count > 5 else { return nil }
            return (String(key), .playlist(rendition: String(name.dropLast(5))), query)
        case 4:
            let p = parts.map(String.init)
            return (String(key), .media(epoch: p[1], rendition: p[2], file: p[3]), query)
        default:
            return nil
        }
    }

    @Test func randomTargetsReadAsTheStringRulesDid() {
        var rng = SplitMix(seed: 22)
        let prefixes = ["/live/", "/t/tok/live/", "/t/", "/", "", "/live", "/x/"]
        let segments = [
            "demo", "video.m3u8", "audio.m3u8", "index.m3u8", "e1", "video", "12.3.m4s", "12.m4s", "1.2.3.m4s",
            "init-0.mp4", "x.m4s", "", ".m3u8", "v.m3u", "a%20", "b+c", "é", "live", "t", "?", "?x/y",
        ]
        let queries = ["", "?_HLS_msn=1", "?_HLS_msn=1&_HLS_part=2", "?a=/b", "?%", "?_HLS_skip=YES", "?", "?x=1+1"]
        var live = 0
        for _ in 0..<20_000 {
            var target = prefixes[rng.next(prefixes.count)]
            target += (0..<rng.next(6)).map { _ in segments[rng.next(segments.count)] }.joined(separator: "/")
            target += queries[rng.next(queries.count)]
            let parsed = LivePath.parse(target)
            // Token paths read as the bare path after `/t/{token}`.
            var bare = target
            if let token = parsed?.token {
                bare.removeFirst(3 + token.count)
            } else if target.hasPrefix("/t/tok/") {
                bare.removeFirst(6)
            }
            let expected = Self.reference(bare)
            #expect(parsed?.key == expected?.key, "\(target)")
            #expect(parsed?.resource == expected?.resource, "\(target)")
            #expect(parsed.map { String($0.query) } == expected?.query, "\(target)")
            if let parsed {
                live += 1
                #expect(
                    parsed.target == RequestTarget(path: String(parsed.path), query: String(parsed.query)),
                    "\(target)"
                )
            }
        }
        // The alphabet reaches live paths hundreds of times (and non-live ones far more often).
        #expect(live > 200)
    }
}

/// A small seeded generator (SplitMix64), so a failure repeats.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
