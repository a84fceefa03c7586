import RTMPWire
import Testing

/// RTMP 1.0 §5.3 chunking: one golden table drives the decoder and the encoder.
struct ChunkCodecTests {
    /// A chunk stream and the messages it carries.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var messages: [RTMPRawMessage]
        /// False for byte sequences our encoder never produces (interleaving).
        var encodes = true
        var testDescription: String { name }
    }

    static func payload(_ n: Int, _ seed: UInt8 = 0) -> [UInt8] {
        (0..<n).map { UInt8(truncatingIfNeeded: $0 &+ Int(seed)) }
    }
    static func msg(_ csid: UInt32, _ ts: UInt32, _ type: UInt8, _ msid: UInt32, _ p: [UInt8]) -> RTMPRawMessage {
        RTMPRawMessage(chunkStreamID: csid, timestamp: ts, typeID: type, messageStreamID: msid, payload: p)
    }

    static let p200 = payload(200)

    static let all: [Case] = [
        Case(
            name: "fmt 0, one chunk",
            bytes: [0x03, 0, 0, 0, 0, 0, 3, 20, 0, 0, 0, 0, 1, 2, 3],
            messages: [msg(3, 0, 20, 0, [1, 2, 3])]
        ),
        Case(
            name: "fmt 0 then fmt 3 continuation at 128 bytes",
            bytes: [0x04, 0x00, 0x03, 0xE8, 0x00, 0x00, 0xC8, 9, 1, 0, 0, 0] + p200[..<128] + [0xC4] + p200[128...],
            messages: [msg(4, 1000, 9, 1, p200)]
        ),
        Case(
            name: "fmt 1 when the length changes",
            bytes: [0x03, 0, 0, 0, 0, 0, 3, 20, 0, 0, 0, 0, 1, 2, 3] + [0x43, 0, 0, 10, 0, 0, 2, 20, 4, 5],
            messages: [msg(3, 0, 20, 0, [1, 2, 3]), msg(3, 10, 20, 0, [4, 5])]
        ),
        Case(
            name: "fmt 2 for a new delta, fmt 3 for a repeated one",
            bytes: [0x06, 0, 0, 0, 0, 0, 2, 8, 1, 0, 0, 0, 0xA1, 0xA2] + [0x86, 0, 0, 40, 0xB1, 0xB2] + [
                0xC6, 0xC1, 0xC2,
            ],
            messages: [
                msg(6, 0, 8, 1, [0xA1, 0xA2]), msg(6, 40, 8, 1, [0xB1, 0xB2]), msg(6, 80, 8, 1, [0xC1, 0xC2]),
            ]
        ),
        Case(
            name: "fmt 3 after fmt 0 reuses its timestamp as the delta",
            bytes: [0x04, 0, 0, 33, 0, 0, 1, 8, 1, 0, 0, 0, 0x01] + [0xC4, 0x02],
            messages: [msg(4, 33, 8, 1, [1]), msg(4, 66, 8, 1, [2])]
        ),
        Case(
            name: "two-byte chunk stream IDs 64 and 319",
            bytes: [0x00, 0x00, 0, 0, 5, 0, 0, 1, 20, 0, 0, 0, 0, 7] + [
                0x00, 0xFF, 0, 0, 6, 0, 0, 1, 20, 0, 0, 0, 0, 8,
            ],
            messages: [msg(64, 5, 20, 0, [7]), msg(319, 6, 20, 0, [8])]
        ),
        Case(
            name: "three-byte chunk stream IDs 320 and 65599",
            bytes: [0x01, 0x00, 0x01, 0, 0, 5, 0, 0, 1, 20, 0, 0, 0, 0, 7]
                + [0x01, 0xFF, 0xFF, 0, 0, 6, 0, 0, 1, 20, 0, 0, 0, 0, 8],
            messages: [msg(320, 5, 20, 0, [7]), msg(65_599, 6, 20, 0, [8])]
        ),
        Case(
            name: "extended timestamp, repeated in the type 3 continuation",
            bytes: [0x04, 0xFF, 0xFF, 0xFF, 0, 0, 0xC8, 9, 1, 0, 0, 0, 0x01, 0, 0, 0] + p200[..<128]
                + [0xC4, 0x01, 0, 0, 0] + p200[128...],
            messages: [msg(4, 0x0100_0000, 9, 1, p200)]
        ),
        Case(
            name: "extended timestamp delta in fmt 2",
            bytes: [0x04, 0, 0, 0, 0, 0, 1, 9, 1, 0, 0, 0, 0xAA] + [0x84, 0xFF, 0xFF, 0xFF, 0x01, 0, 0, 0x05, 0xBB],
            messages: [msg(4, 0, 9, 1, [0xAA]), msg(4, 0x0100_0005, 9, 1, [0xBB])]
        ),
        Case(
            name: "Set Chunk Size applies to the next message",
            bytes: [0x02, 0, 0, 0, 0, 0, 4, 1, 0, 0, 0, 0, 0, 0, 1, 0] + [0x04, 0, 0, 0, 0, 0, 0xC8, 9, 1, 0, 0, 0]
                + p200,
            messages: [msg(2, 0, 1, 0, [0, 0, 1, 0]), msg(4, 0, 9, 1, p200)]
        ),
        Case(
            name: "zero-length message",
            bytes: [0x03, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 0],
            messages: [msg(3, 0, 20, 0, [])]
        ),
        Case(
            name: "interleaved chunk streams",
            bytes: [0x04, 0, 0, 9, 0, 0, 0xC8, 9, 1, 0, 0, 0] + p200[..<128] + [
                0x03, 0, 0, 0, 0, 0, 3, 20, 0, 0, 0, 0, 1, 2, 3,
            ]
                + [0xC4] + p200[128...],
            messages: [msg(3, 0, 20, 0, [1, 2, 3]), msg(4, 9, 9, 1, p200)],
            encodes: false
        ),
    ]

    static func decodeAll(
        _ parts: [[UInt8]],
        limits: ChunkDecoder.Limits = .init()
    ) throws(RTMPWireError)
        -> [RTMPRawMessage]
    {
        var decoder = ChunkDecoder(limits: limits)
        var out: [RTMPRawMessage] = []
        for part in parts {
            decoder.feed(part)
            while let m = try decoder.nextMessage() { out.append(m) }
        }
        return out
    }

    @Test(arguments: all)
    func decodesInEverySplitAndByteByByte(_ c: Case) throws {
        for parts in splits(c.bytes) {
            #expect(try Self.decodeAll(parts) == c.messages)
        }
    }

    @Test(arguments: all.filter(\.encodes))
    func encodes(_ c: Case) {
        var encoder = ChunkEncoder()
        var out: [UInt8] = []
        for m in c.messages {
            encoder.encode(m, into: &out)
            if m.typeID == 1 { encoder.setChunkSize(Int(m.payload[3]) | Int(m.payload[2]) << 8) }
        }
        #expect(out == c.bytes)
    }

    @Test func typeOneChunkOnAFreshStreamIsAnError() {
        #expect(throws: RTMPWireError.missingPreviousHeader(chunkStreamID: 3, format: 1)) {
            try Self.decodeAll([[0x43, 0, 0, 0, 0, 0, 1, 20, 9]])
        }
    }

    @Test func messageOverTheLimitIsAnError() {
        #expect(throws: RTMPWireError.messageTooLarge(size: 200, limit: 100)) {
            try Self.decodeAll([[0x04, 0, 0, 0, 0, 0, 0xC8, 9, 1, 0, 0, 0]], limits: .init(maxMessageSize: 100))
        }
    }

    @Test(arguments: [0, 0x7FFF_FFFF] as [UInt32])
    func chunkSizeOutsideTheLimitIsAnError(_ size: UInt32) {
        let body: [UInt8] = [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
        #expect(throws: RTMPWireError.chunkSizeOutOfRange(size: Int(size), limit: 65_536)) {
            try Self.decodeAll([[0x02, 0, 0, 0, 0, 0, 4, 1, 0, 0, 0, 0] + body], limits: .init(maxChunkSize: 65_536))
        }
    }

    @Test func tooManyChunkStreamsIsAnError() {
        let bytes = (3...5).flatMap { [UInt8($0), 0, 0, 0, 0, 0, 1, 20, 0, 0, 0, 0, 1] as [UInt8] }
        #expect(throws: RTMPWireError.tooManyChunkStreams(limit: 2)) {
            try Self.decodeAll([bytes], limits: .init(maxChunkStreams: 2))
        }
    }

    @Test func newHeaderInTheMiddleOfAMessageIsAnError() {
        let bytes =
            [0x04, 0, 0, 0, 0, 0, 0xC8, 9, 1, 0, 0, 0] + Self.p200[..<128] + [0x04, 0, 0, 0, 0, 0, 1, 9, 1, 0, 0, 0, 1]
        #expect(throws: RTMPWireError.headerChangedMidMessage(chunkStreamID: 4)) { try Self.decodeAll([bytes]) }
    }

    @Test func abortDropsThePartialMessage() throws {
        let bytes =
            [0x04, 0, 0, 0, 0, 0, 0xC8, 9, 1, 0, 0, 0] + Self.p200[..<128]
            + [0x02, 0, 0, 0, 0, 0, 4, 2, 0, 0, 0, 0, 0, 0, 0, 4] + [0x04, 0, 0, 0, 0, 0, 1, 9, 1, 0, 0, 0, 0x55]
        let messages = try Self.decodeAll([bytes])
        #expect(messages.map(\.typeID) == [2, 9])
        #expect(messages.last?.payload == [0x55])
    }

    @Test func firstByteOffsetPointsAtTheMessagesFirstChunk() throws {
        let c = Self.all.last!
        var decoder = ChunkDecoder()
        decoder.feed(c.bytes)
        _ = try decoder.nextMessage()
        #expect(decoder.lastMessageStartOffset == 140)
        _ = try decoder.nextMessage()
        #expect(decoder.lastMessageStartOffset == 0)
    }
}
