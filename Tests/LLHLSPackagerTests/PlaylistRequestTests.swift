import LLHLSPackager
import TestSupport
import Testing

/// RFC 8216bis §6.2.5: `_HLS_msn`, `_HLS_part`, `_HLS_skip` (checklist B3, B7).
@Suite("PlaylistRequest directives")
struct PlaylistRequestTests {
    /// A query and what it parses to (nil: a bad directive).
    struct Case: CustomTestStringConvertible, Sendable {
        var query: [(String, String)]
        var parsed: PlaylistRequest?
        var testDescription: String {
            query.isEmpty ? "(no query)" : query.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        }
    }

    static let cases: [Case] = [
        Case(query: [], parsed: PlaylistRequest()),
        Case(query: [("_HLS_msn", "12")], parsed: PlaylistRequest(msn: 12)),
        Case(query: [("_HLS_msn", "0")], parsed: PlaylistRequest(msn: 0)),
        Case(query: [("_HLS_msn", "12"), ("_HLS_part", "3")], parsed: PlaylistRequest(msn: 12, part: 3)),
        Case(query: [("_HLS_part", "3"), ("_HLS_msn", "12")], parsed: PlaylistRequest(msn: 12, part: 3)),
        Case(
            query: [("_HLS_skip", "YES"), ("_HLS_part", "0"), ("_HLS_msn", "273")],
            parsed: PlaylistRequest(msn: 273, part: 0, skip: true)
        ),
        Case(query: [("_HLS_skip", "YES")], parsed: PlaylistRequest(skip: true)),
        Case(query: [("_HLS_skip", "v2")], parsed: PlaylistRequest(skip: true)),
        Case(query: [("_HLS_skip", "no")], parsed: nil),
        Case(query: [("_HLS_skip", "yes")], parsed: nil),
        Case(query: [("_HLS_part", "3")], parsed: nil),
        Case(query: [("_HLS_part", "0"), ("_HLS_skip", "YES")], parsed: nil),
        Case(query: [("_HLS_msn", "-1")], parsed: nil),
        Case(query: [("_HLS_msn", "abc")], parsed: nil),
        Case(query: [("_HLS_msn", "")], parsed: nil),
        Case(query: [("_HLS_msn", "1.5")], parsed: nil),
        Case(query: [("_HLS_msn", "99999999999999999999999")], parsed: nil),
        Case(query: [("_HLS_msn", "4"), ("_HLS_part", "-2")], parsed: nil),
        Case(query: [("_HLS_msn", "4"), ("_HLS_part", "x")], parsed: nil),
        Case(query: [("token", "abc"), ("_HLS_msn", "7"), ("utm_source", "x")], parsed: PlaylistRequest(msn: 7)),
        Case(query: [("_HLS_future", "1"), ("_hls_msn", "7")], parsed: PlaylistRequest()),
    ]

    @Test(arguments: cases)
    func parsesDirectives(_ c: Case) throws {
        if let expected = c.parsed {
            #expect(try PlaylistRequest(query: c.query) == expected)
        } else {
            let error = #expect(throws: PackagerError.self) { try PlaylistRequest(query: c.query) }
            guard case .badDirective = error else {
                Issue.record("expected badDirective, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func onlyRequestsWithAnMSNBlock() {
        #expect(PlaylistRequest(msn: 0).isBlocking)
        #expect(PlaylistRequest(msn: 3, part: 1, skip: true).isBlocking)
        #expect(!PlaylistRequest(skip: true).isBlocking)
    }

    @Test func anyOrderOfValidDirectivesParsesTheSame() throws {
        var rng = SeededRandom(seed: 99)
        for _ in 0..<500 {
            let msn = Int.random(in: 0...100_000, using: &rng)
            let part = Bool.random(using: &rng) ? Int.random(in: 0...50, using: &rng) : nil
            let skip = Bool.random(using: &rng)
            var query: [(String, String)] = [("_HLS_msn", "\(msn)"), ("other", "x")]
            if let part { query.append(("_HLS_part", "\(part)")) }
            if skip { query.append(("_HLS_skip", Bool.random(using: &rng) ? "YES" : "v2")) }
            query.shuffle(using: &rng)
            #expect(try PlaylistRequest(query: query) == PlaylistRequest(msn: msn, part: part, skip: skip))
        }
    }

    @Test func randomQueriesEitherParseOrFailWithBadDirective() {
        var rng = SeededRandom(seed: 1234)
        let names = ["_HLS_msn", "_HLS_part", "_HLS_skip", "x", ""]
        let values = ["0", "1", "-1", "YES", "v2", "", "9223372036854775807", "1e3", " 1", "٣"]
        for _ in 0..<2_000 {
            let query = (0..<Int.random(in: 0...4, using: &rng)).map { _ in
                (names.randomElement(using: &rng)!, values.randomElement(using: &rng)!)
            }
            do {
                let r = try PlaylistRequest(query: query)
                #expect(r.part == nil || r.msn != nil)
                #expect((r.msn ?? 0) >= 0 && (r.part ?? 0) >= 0)
            } catch {
                guard case .badDirective = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
            }
        }
    }

    /// The raw-query test the origin's routing and telemetry share: `_HLS_msn=` as a whole parameter name.
    static let blockingQueries: [(String, Bool)] = [
        ("_HLS_msn=3", true), ("a=1&_HLS_msn=3&_HLS_part=1", true), ("_HLS_msn=", true), ("_HLS_msn=x", true),
        ("", false), ("_HLS_part=1", false), ("_HLS_msn", false), ("x_HLS_msn=3", false), ("_HLS_msnX=3", false),
        ("a=_HLS_msn=3", false), ("_hls_msn=3", false),
    ]

    @Test(arguments: 0..<blockingQueries.count)
    func aRawQueryAsksToBlockWithAnHLSMSNParameter(_ i: Int) {
        let (query, blocks) = Self.blockingQueries[i]
        #expect(PlaylistRequest.asksToBlock(query: query) == blocks, "\(query)")
    }
}
