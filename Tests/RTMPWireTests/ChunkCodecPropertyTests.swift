import RTMPWire
import TestSupport
import Testing

/// Seeded random inputs for the chunk codec: round trips hold, garbage only yields typed errors.
struct ChunkCodecPropertyTests {
    static func randomMessages(_ rng: inout SeededRandom) -> [RTMPRawMessage] {
        let ids: [UInt32] = [2, 3, 4, 5, 6, 63, 64, 319, 320, 65_599]
        var clock: [UInt32: UInt32] = [:]
        return (0..<Int.random(in: 1...40, using: &rng)).map { _ in
            let csid = ids.randomElement(using: &rng)!
            var ts = clock[csid, default: 0]
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: ts = UInt32.random(in: 0...UInt32.max, using: &rng)  // Jumps, backwards or extended.
            case 1: ts &+= UInt32.random(in: 0xFF_FFF0...0x0200_0000, using: &rng)
            case 2...4: ts &+= 33
            default: ts &+= UInt32.random(in: 0...100, using: &rng)
            }
            clock[csid] = ts
            let size =
                Bool.random(using: &rng) ? Int.random(in: 0...300, using: &rng) : Int.random(in: 0...5000, using: &rng)
            return RTMPRawMessage(
                chunkStreamID: csid,
                timestamp: ts,
                typeID: [8, 9, 18, 20].randomElement(using: &rng)!,
                messageStreamID: UInt32.random(in: 0...2, using: &rng),
                payload: rng.bytes(size)
            )
        }
    }

    @Test(arguments: 0..<200 as Range<UInt64>)
    func randomMessagesRoundTripAtRandomChunkSizes(_ seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let messages = Self.randomMessages(&rng)
        let chunkSize =
            Bool.random(using: &rng) ? Int.random(in: 1...256, using: &rng) : Int.random(in: 1...6000, using: &rng)
        var encoder = ChunkEncoder(chunkSize: chunkSize)
        var bytes: [UInt8] = []
        for m in messages { encoder.encode(m, into: &bytes) }
        var decoder = ChunkDecoder()
        try decoder.setChunkSize(chunkSize)
        var decoded: [RTMPRawMessage] = []
        var rest = bytes[...]
        while !rest.isEmpty {
            let n = Int.random(in: 1...min(rest.count, 3000), using: &rng)
            decoder.feed(rest.prefix(n))
            rest = rest.dropFirst(n)
            while let m = try decoder.nextMessage() { decoded.append(m) }
        }
        #expect(decoded == messages)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test(arguments: 0..<300 as Range<UInt64>)
    func randomAndMutatedBytesOnlyYieldTypedErrors(_ seed: UInt64) {
        var rng = SeededRandom(seed: seed ^ 0xF00D)
        var bytes: [UInt8]
        if seed % 2 == 0 {
            bytes = rng.bytes(Int.random(in: 0...4000, using: &rng))
        } else {
            var encoder = ChunkEncoder(chunkSize: Int.random(in: 1...300, using: &rng))
            bytes = []
            for m in Self.randomMessages(&rng) { encoder.encode(m, into: &bytes) }
            for _ in 0..<Int.random(in: 1...20, using: &rng) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
        }
        var decoder = ChunkDecoder(limits: .init(maxMessageSize: 1 << 16, maxChunkSize: 1 << 16, maxChunkStreams: 16))
        decoder.feed(bytes)
        var count = 0
        var failure: RTMPWireError?
        do {
            while try decoder.nextMessage() != nil { count += 1 }
        } catch {
            failure = error  // Any typed error is acceptable; the point is no trap and no hang.
        }
        #expect(count <= bytes.count, "every message costs at least one byte")
        #expect(failure != nil || decoder.bufferedByteCount <= bytes.count)
    }
}
