import MediaCore
import Testing

/// Where a stream that moved to another node starts its numbering: past every MSN the old node can have listed.
@Suite("StreamContinuation")
struct StreamContinuationTests {
    /// One numbering decision: a position recorded `age` ago (negative: the recorder's clock is ahead), and what the
    /// continuation starts at (nil: no continuation).
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let nextMSN: Int
        let discontinuity: Int
        let age: Duration
        var segmentTarget: Duration = .seconds(1)
        var slack: Duration = .seconds(2)
        var maxAge: Duration = .seconds(60)
        let expected: (firstMSN: Int, discontinuitySequence: Int)?

        var testDescription: String { name }

        static let all: [Case] = [
            // The old node can have opened segments 42 and 43 in the 2 s slack: 44, past a hint at 43.0.
            Case(name: "just recorded", nextMSN: 42, discontinuity: 0, age: .zero, expected: (45, 1)),
            Case(name: "1.2 s ago", nextMSN: 42, discontinuity: 3, age: .milliseconds(1_200), expected: (47, 4)),
            Case(name: "an exact number of segments", nextMSN: 1, discontinuity: 0, age: .seconds(3), expected: (7, 1)),
            Case(
                name: "half-second segments advance twice as fast",
                nextMSN: 10,
                discontinuity: 1,
                age: .seconds(1),
                segmentTarget: .milliseconds(500),
                expected: (17, 2)
            ),
            Case(name: "no slack", nextMSN: 10, discontinuity: 0, age: .zero, slack: .zero, expected: (11, 1)),
            Case(
                name: "recorder's clock ahead reads as no time passed",
                nextMSN: 42,
                discontinuity: 0,
                age: .seconds(-5),
                expected: (45, 1)
            ),
            Case(name: "at the TTL", nextMSN: 42, discontinuity: 0, age: .seconds(60), expected: (105, 1)),
            Case(
                name: "older than the TTL: a stream long gone",
                nextMSN: 42,
                discontinuity: 0,
                age: .seconds(61),
                expected: nil
            ),
            Case(
                name: "no segment target",
                nextMSN: 42,
                discontinuity: 0,
                age: .zero,
                segmentTarget: .zero,
                expected: nil
            ),
        ]
    }

    @Test(arguments: Case.all)
    func decidesTheFirstMSNAndDiscontinuitySequence(_ c: Case) {
        let now = WallTime(millisecondsSince1970: 1_764_340_000_000)
        let position = StreamPosition(
            nextMSN: c.nextMSN,
            discontinuity: c.discontinuity,
            epoch: "m3k2x9",
            node: "http://10.0.0.5:8080",
            recordedAt: now.advanced(by: .zero - c.age)
        )
        let continuation = StreamContinuation(
            continuing: position,
            now: now,
            segmentTarget: c.segmentTarget,
            slack: c.slack,
            maxAge: c.maxAge
        )
        #expect(continuation?.firstMSN == c.expected?.firstMSN)
        #expect(continuation?.discontinuitySequence == c.expected?.discontinuitySequence)
        #expect(continuation.map { $0.position == position } ?? true)
    }

    @Test func neverStartsAtOrBelowAnMSNTheOldNodeListedSinceItRecorded() {
        let recorded = WallTime(millisecondsSince1970: 1_764_340_000_000)
        let position = StreamPosition(nextMSN: 100, discontinuity: 0, epoch: "e", node: "n", recordedAt: recorded)
        for ms in stride(from: 0, through: 10_000, by: 100) {
            let now = recorded.advanced(by: .milliseconds(ms))
            let c = StreamContinuation(
                continuing: position,
                now: now,
                segmentTarget: .seconds(1),
                slack: .zero,
                maxAge: .seconds(60)
            )
            // Segments of at least the target: by `now` the old node opened at most ceil(age / target) after 99.
            let highestListed = 99 + Int((Double(ms) / 1_000).rounded(.up))
            #expect((c?.firstMSN ?? 0) > highestListed + 0, "at \(ms) ms")
            #expect((c?.firstMSN ?? 0) == highestListed + 2, "at \(ms) ms: the next after a preload hint")
        }
    }
}
