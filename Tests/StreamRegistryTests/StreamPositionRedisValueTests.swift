import MediaCore
import Testing

@testable import StreamRegistry

/// The stored form of a stream's position (`sluice:pos:KEY`): one golden table read and written, and what is refused.
@Suite("StreamPosition in Redis")
struct StreamPositionRedisValueTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let stored: String
        let position: StreamPosition
        var testDescription: String { name }

        static let all: [Case] = [
            Case(
                name: "a live stream",
                stored: "v1 msn=42 dsn=3 at=1764340000123 epoch=m3k2x9 node=http://10.0.0.5:8080",
                position: StreamPosition(
                    nextMSN: 42,
                    discontinuity: 3,
                    epoch: "m3k2x9",
                    node: "http://10.0.0.5:8080",
                    recordedAt: WallTime(millisecondsSince1970: 1_764_340_000_123)
                )
            ),
            Case(
                name: "a stream that has just started",
                stored: "v1 msn=1 dsn=0 at=0 epoch=a node=https://[::1]:8443",
                position: StreamPosition(
                    nextMSN: 1,
                    discontinuity: 0,
                    epoch: "a",
                    node: "https://[::1]:8443",
                    recordedAt: WallTime(millisecondsSince1970: 0)
                )
            ),
        ]
    }

    @Test(arguments: Case.all)
    func writes(_ c: Case) {
        #expect(c.position.redisValue == c.stored)
    }

    @Test(arguments: Case.all)
    func reads(_ c: Case) {
        #expect(StreamPosition(redisValue: c.stored) == c.position)
    }

    @Test(arguments: [
        "",
        "v2 msn=42 dsn=3 at=1764340000123 epoch=m3k2x9 node=http://n",
        "v1 msn=42 dsn=3 at=1764340000123 epoch=m3k2x9",
        "v1 msn=42 dsn=3 at=1764340000123 epoch=m3k2x9 node=http://n extra=1",
        "v1 msn=42 msn=43 at=1764340000123 epoch=m3k2x9 node=http://n",
        "v1 msn=-1 dsn=3 at=1764340000123 epoch=m3k2x9 node=http://n",
        "v1 msn=42 dsn=x at=1764340000123 epoch=m3k2x9 node=http://n",
        "v1 msn=42 dsn=3 at=soon epoch=m3k2x9 node=http://n",
        "v1 msn=42 dsn=3 at=1764340000123 epoch= node=http://n",
        "v1 msn=42 dsn=3 at=1764340000123 epoch=m3k2x9 node",
        "v1  msn=42 dsn=3 at=1764340000123 epoch=m3k2x9 node=http://n",
        "v1 msn=42 dsn=3 at=1764340000123 epoch=m3k2x9 host=http://n",
    ])
    func refusesWhatItDidNotWrite(_ stored: String) {
        #expect(StreamPosition(redisValue: stored) == nil)
    }
}
