import TestSupport
import Testing
import WebRTCWire

/// One RTP golden case shared by the decode and encode directions.
struct RTPCase: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let packet: RTPPacket
    var testDescription: String { name }

    static let all: [RTPCase] = [
        RTPCase(
            name: "plain H.264 payload",
            bytes: hex("80600001 00000064 deadbeef 010203"),
            packet: RTPPacket(
                payloadType: 96,
                sequenceNumber: 1,
                timestamp: 100,
                ssrc: 0xDEAD_BEEF,
                payload: [1, 2, 3]
            )
        ),
        RTPCase(
            name: "marker and two CSRCs at sequence 65535",
            bytes: hex("82e0ffff 12345678 00000001 00000002 00000003 aa"),
            packet: RTPPacket(
                marker: true,
                payloadType: 96,
                sequenceNumber: 65535,
                timestamp: 0x1234_5678,
                ssrc: 1,
                csrcs: [2, 3],
                payload: [0xAA]
            )
        ),
        RTPCase(
            name: "Opus with one-byte extensions (abs-send-time 2, transport-cc 3)",
            bytes: hex("906f000a 00000bb8 00000007 bede0002 22010203 31000500 ff"),
            packet: RTPPacket(
                payloadType: 111,
                sequenceNumber: 10,
                timestamp: 3000,
                ssrc: 7,
                headerExtension: .oneByte([.init(id: 2, value: [1, 2, 3]), .init(id: 3, value: [0, 5])]),
                payload: [0xFF]
            )
        ),
        RTPCase(
            name: "three bytes of padding",
            bytes: hex("a0600002 00000000 00000009 0506 000003"),
            packet: RTPPacket(
                payloadType: 96,
                sequenceNumber: 2,
                timestamp: 0,
                ssrc: 9,
                payload: [5, 6],
                paddingLength: 3
            )
        ),
        RTPCase(
            name: "two-byte extensions with an empty element",
            bytes: hex("90600003 00000000 00000001 10000002 01001402 01020000 07"),
            packet: RTPPacket(
                payloadType: 96,
                sequenceNumber: 3,
                timestamp: 0,
                ssrc: 1,
                headerExtension: .twoByte([.init(id: 1, value: []), .init(id: 20, value: [1, 2])]),
                payload: [7]
            )
        ),
    ]
}

/// RTP header parsing and writing, extensions and sequence arithmetic.
@Suite struct RTPPacketTests {
    @Test(arguments: RTPCase.all) func decodes(_ c: RTPCase) throws {
        #expect(try RTPPacket(parsing: c.bytes) == c.packet)
    }

    @Test(arguments: RTPCase.all) func encodes(_ c: RTPCase) {
        #expect(c.packet.serialized() == c.bytes)
    }

    @Test func extensionElementsReadBack() throws {
        let oneByte = try #require(try RTPPacket(parsing: RTPCase.all[2].bytes).headerExtension)
        #expect(try oneByte.elements() == [.init(id: 2, value: [1, 2, 3]), .init(id: 3, value: [0, 5])])
        let twoByte = try #require(try RTPPacket(parsing: RTPCase.all[4].bytes).headerExtension)
        #expect(try twoByte.elements() == [.init(id: 1, value: []), .init(id: 20, value: [1, 2])])
        // ID 15 stops one-byte parsing (RFC 8285 §4.2).
        #expect(
            try RTPHeaderExtension(profile: 0xBEDE, data: [0x10, 9, 0xF0, 0]).elements() == [.init(id: 1, value: [9])]
        )
        #expect(throws: WebRTCWireError.rtpBadField(field: "one-byte extension 1 length", value: 4)) {
            try RTPHeaderExtension(profile: 0xBEDE, data: [0x13, 1, 2, 0]).elements()
        }
        #expect(RTPHeaderExtension.oneByte([.init(id: 15, value: [1])]) == nil)
        #expect(RTPHeaderExtension.oneByte([.init(id: 1, value: [UInt8](repeating: 0, count: 17))]) == nil)
    }

    @Test func rejectsMalformedPackets() {
        #expect(throws: WebRTCWireError.rtpBadVersion(1)) { try RTPPacket(parsing: hex("40600001 00000064 deadbeef")) }
        #expect(throws: WebRTCWireError.truncated(what: "RTP header", offset: 8, wanted: 4, available: 3)) {
            try RTPPacket(parsing: hex("80600001 00000064 deadbe"))
        }
        #expect(throws: WebRTCWireError.truncated(what: "RTP header", offset: 12, wanted: 4, available: 0)) {
            try RTPPacket(parsing: hex("81600001 00000064 deadbeef"))
        }
        #expect(throws: WebRTCWireError.rtpBadField(field: "RTP padding length", value: 0)) {
            try RTPPacket(parsing: hex("a0600001 00000064 deadbeef 0100"))
        }
        #expect(throws: WebRTCWireError.rtpBadField(field: "RTP padding length", value: 9)) {
            try RTPPacket(parsing: hex("a0600001 00000064 deadbeef 0109"))
        }
    }

    @Test func sequenceNumbersCompareAcrossTheWrap() {
        #expect(RTPSequenceNumber.isNewer(0, than: 65535))
        #expect(!RTPSequenceNumber.isNewer(65535, than: 0))
        #expect(!RTPSequenceNumber.isNewer(7, than: 7))
        #expect(RTPSequenceNumber.isNewer(0x7FFF, than: 0) && !RTPSequenceNumber.isNewer(0x8000, than: 0))
        #expect(RTPSequenceNumber.distance(from: 65530, to: 5) == 11)
        #expect(RTPSequenceNumber.distance(from: 5, to: 65530) == -11)
        #expect(RTPSequenceNumber.step(from: 65535, to: 0) == .next)
        #expect(RTPSequenceNumber.step(from: 65534, to: 2) == .gap(missing: 3))
        #expect(RTPSequenceNumber.step(from: 10, to: 10) == .stale && RTPSequenceNumber.step(from: 10, to: 5) == .stale)
        #expect(RTPSequenceNumber.step(from: 30_000, to: 1) == .restart)
        var unwrapper = RTPSequenceUnwrapper()
        let extended = [65534, 65535, 0, 1, 65533, 2].map { unwrapper.unwrap(UInt16($0)) }
        #expect(extended == [131_070, 131_071, 131_072, 131_073, 131_069, 131_074])
    }

    @Test func randomBytesNeverCrash() {
        var rng = SeededRandom(seed: 0x4750)
        for i in 0..<4_000 {
            var bytes =
                i % 2 == 0
                ? rng.mutate(RTPCase.all[i % RTPCase.all.count].bytes) : rng.bytes(Int.random(in: 0...40, using: &rng))
            if i % 3 == 0, !bytes.isEmpty { bytes[0] = 0x80 | bytes[0] & 0x3F }
            if let packet = try? RTPPacket(parsing: bytes) { _ = try? packet.headerExtension?.elements() }
        }
    }

    @Test func randomPacketsRoundTrip() throws {
        var rng = SeededRandom(seed: 0x4751)
        for _ in 0..<1_000 {
            let elements = (0..<Int.random(in: 0...4, using: &rng)).map { _ in
                RTPHeaderExtension.Element(
                    id: UInt8.random(in: 1...14, using: &rng),
                    value: rng.bytes(Int.random(in: 1...16, using: &rng))
                )
            }
            let packet = RTPPacket(
                marker: Bool.random(using: &rng),
                payloadType: UInt8.random(in: 0...127, using: &rng),
                sequenceNumber: UInt16.random(in: 0...UInt16.max, using: &rng),
                timestamp: UInt32.random(in: 0...UInt32.max, using: &rng),
                ssrc: UInt32.random(in: 0...UInt32.max, using: &rng),
                csrcs: (0..<Int.random(in: 0...15, using: &rng)).map { _ in
                    UInt32.random(in: 0...UInt32.max, using: &rng)
                },
                headerExtension: elements.isEmpty ? nil : RTPHeaderExtension.oneByte(elements),
                payload: rng.bytes(Int.random(in: 0...50, using: &rng)),
                paddingLength: Int.random(in: 0...3, using: &rng)
            )
            let parsed = try RTPPacket(parsing: packet.serialized())
            #expect(parsed == packet)
            #expect(try parsed.headerExtension?.elements() ?? [] == elements)
        }
    }
}

/// RFC 4588 retransmission packets.
@Suite struct RTPRetransmissionTests {
    @Test func unwrapsTheOriginalSequenceNumberAndPayload() throws {
        // FFmpeg 9 answers a NACK with PT 105 on its FID SSRC; OSN 0x1234 then the original payload.
        let rtx = try RTPPacket(parsing: hex("80e90007 00000bb8 d761f0a0 1234 7c8501"))
        let original = try #require(rtx.unwrappingRetransmission(payloadType: 106, ssrc: 0xD761_F09F))
        #expect(
            original
                == RTPPacket(
                    marker: true,
                    payloadType: 106,
                    sequenceNumber: 0x1234,
                    timestamp: 3000,
                    ssrc: 0xD761_F09F,
                    payload: [0x7C, 0x85, 0x01]
                )
        )
        #expect(original.wrappedForRetransmission(payloadType: 105, ssrc: 0xD761_F0A0, sequenceNumber: 7) == rtx)
    }

    @Test func paddingOnlyProbesCarryNothing() throws {
        let probe = try RTPPacket(parsing: hex("a0690008 00000bb8 d761f0a0 00000000 00000000 0000000c"))
        #expect(probe.payload.isEmpty && probe.unwrappingRetransmission(payloadType: 106, ssrc: 1) == nil)
    }
}
