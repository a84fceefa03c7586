import HTTPClient
import MediaCore
import TestSupport
import Testing

@testable import SluiceBench

/// The load generator's tail reader (RFC 8216bis §4.4.4.9 EXT-X-PART, §4.4.5.3 EXT-X-PRELOAD-HINT).
@Suite("Load generator playlist reader")
struct LoadGeneratorPlaylistTests {
    typealias P = LoadGeneratorPlaylist.Position

    /// One golden case: a playlist, the position asked from, and what must come back.
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var text: String
        var from: P
        var parts: [P]
        var hint: P?
        var ended = false
        var description: String { name }
    }

    static let live = """
        #EXTM3U
        #EXT-X-TARGETDURATION:2
        #EXT-X-PART-INF:PART-TARGET=0.2
        #EXT-X-MEDIA-SEQUENCE:7
        #EXT-X-MAP:URI="ep/video/init-0.mp4"
        #EXT-X-PART:DURATION=0.2,URI="ep/video/7.8.m4s"
        #EXT-X-PART:DURATION=0.2,URI="ep/video/7.9.m4s"
        #EXTINF:2.0,
        ep/video/7.m4s
        #EXT-X-PART:DURATION=0.2,URI="ep/video/8.0.m4s",INDEPENDENT=YES
        #EXT-X-PART:DURATION=0.2,URI="ep/video/8.1.m4s"
        #EXT-X-PRELOAD-HINT:TYPE=PART,URI="ep/video/8.2.m4s"
        #EXT-X-RENDITION-REPORT:URI="audio.m3u8",LAST-MSN=8,LAST-PART=1

        """

    static let cases: [Case] = [
        Case(
            name: "newest part",
            text: live,
            from: P(msn: 8, part: 1),
            parts: [P(msn: 8, part: 1)],
            hint: P(msn: 8, part: 2)
        ),
        Case(
            name: "across a segment boundary",
            text: live,
            from: P(msn: 7, part: 9),
            parts: [P(msn: 7, part: 9), P(msn: 8, part: 0), P(msn: 8, part: 1)],
            hint: P(msn: 8, part: 2)
        ),
        Case(name: "only the hint", text: live, from: P(msn: Int.max, part: 0), parts: [], hint: P(msn: 8, part: 2)),
        Case(
            name: "ended",
            text: "#EXTM3U\n#EXT-X-PART:DURATION=0.2,URI=\"a/b/3.0.m4s\"\n#EXTINF:0.2,\na/b/3.m4s\n#EXT-X-ENDLIST\n",
            from: P(msn: 0, part: 0),
            parts: [P(msn: 3, part: 0)],
            hint: nil,
            ended: true
        ),
        Case(
            name: "no trailing newline",
            text: "#EXTM3U\n#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"5.1.m4s\"",
            from: P(msn: 0, part: 0),
            parts: [],
            hint: P(msn: 5, part: 1)
        ),
        Case(
            name: "segment URIs and junk are not parts",
            text: "#EXTM3U\n#EXT-X-PART:URI=\"x/7.m4s\"\n#EXT-X-PART:URI=\"x/a.1.m4s\"\nx/1.2.m4s\n",
            from: P(msn: 0, part: 0),
            parts: [],
            hint: nil
        ),
        Case(name: "empty", text: "", from: P(msn: 0, part: 0), parts: [], hint: nil),
    ]

    @Test(arguments: cases)
    func readsTheGoldenPlaylists(_ c: Case) {
        let r = LoadGeneratorPlaylist(Array(c.text.utf8), from: c.from)
        #expect(r.parts.map(\.position) == c.parts)
        #expect(r.hint == c.hint)
        #expect(r.ended == c.ended)
    }

    @Test func agreesWithTheFullReaderOnRandomPlaylists() throws {
        var rng = SeededRandom(seed: 0x10AD)
        for _ in 0..<300 {
            let first = Int.random(in: 1...50, using: &rng)
            var lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:\(first)"]
            var all: [P] = []
            let segments = Int.random(in: 1...6, using: &rng)
            for m in first..<(first + segments) {
                let parts = Int.random(in: 1...10, using: &rng)
                for i in 0..<parts {
                    lines.append(
                        "#EXT-X-PART:DURATION=0.2,URI=\"e/video/\(m).\(i).m4s\"" + (i == 0 ? ",INDEPENDENT=YES" : "")
                    )
                    all.append(P(msn: m, part: i))
                }
                if m < first + segments - 1 { lines += ["#EXTINF:2.0,", "e/video/\(m).m4s"] }
            }
            let hint = P(msn: all.last!.msn, part: all.last!.part + 1)
            lines.append("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"e/video/\(hint.msn).\(hint.part).m4s\"")
            let text = lines.joined(separator: "\n") + "\n"
            let from = all[Int.random(in: 0..<all.count, using: &rng)]
            let r = LoadGeneratorPlaylist(Array(text.utf8), from: from)
            #expect(r.parts.map(\.position) == all.filter { $0 >= from })
            #expect(r.parts.last?.uri == "e/video/\(all.last!.msn).\(all.last!.part).m4s")
            #expect(r.hint == hint)
            // The full reader sees the same parts.
            let full = try ReadPlaylist(parsing: text, url: "http://h/p.m3u8")
            #expect(full.parts.map { P(msn: $0.msn, part: $0.index) }.filter { $0 >= from } == r.parts.map(\.position))
        }
    }
}

/// Delivery is measured from the origin's stated publication instant when it gives one.
@Suite("Load generator publication clock")
struct PublicationClockTests {
    @Test func theOriginsStatedInstantBecomesAMonotonicInstantAsFarBack() throws {
        let clock = PublicationClock(embedded: nil)
        let completed = ContinuousClock.now
        let wall = WallTime(nanosecondsSince1970: 1_795_690_022_500_000_000)
        let part = HTTPClientResponse(
            status: 200,
            headers: ["x-sluice-published": "1795690022.457250"],
            completed: (completed, wall)
        )
        #expect(clock.definition(live: true).hasPrefix("first byte"))
        let published = try #require(clock.stated(by: part))
        #expect(completed - published == .microseconds(42_750))
        #expect(clock.definition(live: true).contains("X-Sluice-Published"))
    }

    @Test func noHeaderOrAGarbledOneStatesNothing() {
        let clock = PublicationClock(embedded: nil)
        #expect(clock.stated(by: HTTPClientResponse(status: 200)) == nil)
        #expect(clock.stated(by: HTTPClientResponse(status: 200, headers: ["x-sluice-published": "soon"])) == nil)
    }
}
