import RTMPWire
import TestSupport
import Testing

/// RTMP 1.0 §5.2 simple handshake, server side.
struct RTMPHandshakeTests {
    /// One golden exchange: C0+C1+C2 in, S0+S1+S2 out, with a fixed S1.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var time: UInt32
        var random: [UInt8]
        var c1: [UInt8]
        var trailing: [UInt8]
        var testDescription: String { name }

        var input: [UInt8] { [3] + c1 + [UInt8](repeating: 0xC2, count: 1536) + trailing }
        var expectedReply: [UInt8] {
            [3, UInt8(time >> 24), UInt8(time >> 16 & 0xFF), UInt8(time >> 8 & 0xFF), UInt8(time & 0xFF), 0, 0, 0, 0]
                + random + c1
        }

        static let all: [Case] = [
            Case(
                name: "zero time, patterned C1",
                time: 0,
                random: (0..<1528).map { UInt8($0 % 251) },
                c1: (0..<1536).map { UInt8($0 % 256) },
                trailing: []
            ),
            Case(
                name: "time and chunk bytes after C2",
                time: 0x0102_0304,
                random: [UInt8](repeating: 0xAB, count: 1528),
                c1: [UInt8](repeating: 0x11, count: 1536),
                trailing: [0x03, 0x00, 0x00]
            ),
        ]
    }

    /// Feeds `parts` in order; returns everything replied, completion, leftover.
    static func run(_ h: inout RTMPHandshake, _ parts: [[UInt8]]) throws -> ([UInt8], Bool, [UInt8]) {
        var reply: [UInt8] = []
        for part in parts {
            let out = try h.receive(part)
            reply += out.reply
            if out.isComplete { return (reply, true, out.leftover) }
        }
        return (reply, false, [])
    }

    @Test(arguments: Case.all)
    func decodesC0C1C2InAnySplitAndRepliesS0S1S2(_ c: Case) throws {
        for parts in [[c.input]] + (0...1600).map({ [Array(c.input[..<$0]), Array(c.input[$0...])] }) {
            var h = RTMPHandshake(time: c.time, randomBytes: c.random)
            let (reply, done, leftover) = try Self.run(&h, parts)
            #expect(reply == c.expectedReply)
            #expect(done)
            #expect(leftover == c.trailing)
        }
    }

    @Test(arguments: Case.all)
    func encodesS1WithTimeZerosAndRandom(_ c: Case) throws {
        var h = RTMPHandshake(time: c.time, randomBytes: c.random)
        let out = try h.receive([3] + c.c1)
        #expect(out.reply == c.expectedReply)
        #expect(out.reply.count == 1 + 1536 * 2)
        #expect(Array(out.reply[5..<9]) == [0, 0, 0, 0])
        #expect(!out.isComplete)
        #expect(h.state == .awaitingC2)
    }

    @Test func handshakeByteByByteCompletes() throws {
        let c = Case.all[1]
        var h = RTMPHandshake(time: c.time, randomBytes: c.random)
        let (reply, done, leftover) = try Self.run(&h, c.input.map { [$0] })
        #expect(reply == c.expectedReply && done)
        // Byte by byte, C2's last byte completes the handshake before the chunk bytes arrive.
        #expect(leftover.isEmpty)
    }

    @Test func encryptedVersionIsRefused() {
        var h = RTMPHandshake()
        #expect(throws: RTMPWireError.encryptedHandshakeUnsupported) { try h.receive([6]) }
    }

    @Test(arguments: [0, 1, 2, 4, 0x47, 0xFF] as [UInt8])
    func otherVersionsAreRefused(_ version: UInt8) {
        var h = RTMPHandshake()
        #expect(throws: RTMPWireError.unsupportedHandshakeVersion(version)) { try h.receive([version, 0, 0]) }
    }

    @Test func bytesAfterCompletionAreAnError() throws {
        var h = RTMPHandshake()
        _ = try h.receive([3] + [UInt8](repeating: 0, count: 3072))
        #expect(throws: RTMPWireError.handshakeAlreadyComplete) { try h.receive([1]) }
    }

    @Test func randomBytesNeverCrashTheHandshake() {
        var rng = SeededRandom(seed: 0x5EED_0001)
        for _ in 0..<300 {
            var h = RTMPHandshake(using: &rng)
            let input = rng.bytes(Int.random(in: 0...4000, using: &rng))
            do {
                var rest = input[...]
                while !rest.isEmpty {
                    let n = Int.random(in: 1...rest.count, using: &rng)
                    let out = try h.receive(rest.prefix(n))
                    rest = rest.dropFirst(n)
                    if out.isComplete { break }
                }
            } catch {
                #expect(input.first != 3)
            }
        }
    }
}
