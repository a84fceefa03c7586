import RedisWire
import TestSupport
import Testing

/// Properties over random input: garbage never crashes the parser (a reply or an error, nothing else), a truncated
/// valid stream is never an error, and any value survives encode → split → decode.
struct RESPParserPropertyTests {
    /// A random value tree at most `depth` arrays deep.
    static func randomValue(depth: Int, using rng: inout SeededRandom) -> RESPValue {
        switch Int.random(in: 0..<(depth > 0 ? 7 : 5), using: &rng) {
        case 0:
            .simpleString(
                String(decoding: rng.bytes(Int.random(in: 0..<12, using: &rng)).map { 0x20 + $0 % 0x5F }, as: UTF8.self)
            )
        case 1: .error("ERR " + String(Int.random(in: 0..<1000, using: &rng)))
        case 2: .integer(Int64.random(in: .min ... .max, using: &rng))
        case 3: .bulkString(rng.bytes(Int.random(in: 0..<40, using: &rng)))
        case 4: Bool.random(using: &rng) ? .bulkString(nil) : .array(nil)
        default:
            .array((0..<Int.random(in: 0..<5, using: &rng)).map { _ in randomValue(depth: depth - 1, using: &rng) })
        }
    }

    /// `bytes` cut at random places.
    static func randomParts(_ bytes: [UInt8], using rng: inout SeededRandom) -> [[UInt8]] {
        var parts: [[UInt8]] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + Int.random(in: 1...16, using: &rng))
            parts.append(Array(bytes[start..<end]))
            start = end
        }
        return parts
    }

    @Test func randomValuesRoundTripThroughRandomSplits() throws {
        var rng = SeededRandom(seed: 0x5245_5350)
        for _ in 0..<2_000 {
            let values = (0..<Int.random(in: 1...4, using: &rng)).map { _ in Self.randomValue(depth: 3, using: &rng) }
            let bytes = try values.flatMap { try $0.encoded() }
            #expect(try RESPParserTests.decodeAll(Self.randomParts(bytes, using: &rng)) == values)
        }
    }

    @Test func truncatedValidStreamsAreIncompleteNeverErrors() throws {
        var rng = SeededRandom(seed: 0x7472_756E)
        for _ in 0..<2_000 {
            let values = (0..<Int.random(in: 1...4, using: &rng)).map { _ in Self.randomValue(depth: 3, using: &rng) }
            let bytes = try values.flatMap { try $0.encoded() }
            let cut = Int.random(in: 0..<bytes.count, using: &rng)
            let decoded = try RESPParserTests.decodeAll(Self.randomParts(Array(bytes[..<cut]), using: &rng))
            #expect(decoded.count < values.count)
            #expect(Array(values.prefix(decoded.count)) == decoded)
        }
    }

    @Test func randomBytesAndMutatedRepliesDecodeOrThrowNeverCrash() {
        var rng = SeededRandom(seed: 0x6675_7A7A)
        let goldens = RESPCase.all.map(\.bytes)
        var outcomes = (values: 0, errors: 0)
        for round in 0..<20_000 {
            let bytes =
                round % 2 == 0
                ? rng.bytes(Int.random(in: 0..<64, using: &rng))
                : rng.mutate(goldens[Int.random(in: 0..<goldens.count, using: &rng)])
            do {
                outcomes.values += try RESPParserTests.decodeAll(Self.randomParts(bytes, using: &rng)).count
            } catch {
                outcomes.errors += 1
                #expect(!error.description.isEmpty)
            }
        }
        // Both branches were exercised (a generator that only ever produced garbage would prove little).
        #expect(outcomes.values > 1_000)
        #expect(outcomes.errors > 1_000)
    }
}
