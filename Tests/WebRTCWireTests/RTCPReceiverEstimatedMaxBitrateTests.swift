import TestSupport
import Testing
import WebRTCWire

/// draft-alvestrand-rmcat-remb-03 §2.2: REMB bytes both ways, the exponent/mantissa rounding, and seeded round trips.
@Suite struct RTCPReceiverEstimatedMaxBitrateTests {
    /// One REMB golden case: bitrate and SSRCs against the whole packet.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let bitrate: UInt64
        let ssrcs: [UInt32]
        let bytes: [UInt8]
        var testDescription: String { name }
    }

    // Header 8F CE (V=2, FMT=15, PT=206), sender 1, media 0, "REMB", count, 6-bit exponent + 18-bit mantissa, SSRCs.
    static let cases: [Case] = [
        Case(
            name: "2.5 Mb/s, one SSRC: exponent 4, mantissa 156250",
            bitrate: 2_500_000,
            ssrcs: [0x1122_3344],
            bytes: hex("8fce0005 00000001 00000000 52454d42 0112625a 11223344")
        ),
        Case(
            name: "small rate fits the mantissa: exponent 0",
            bitrate: 100_000,
            ssrcs: [7],
            bytes: hex("8fce0005 00000001 00000000 52454d42 010186a0 00000007")
        ),
        Case(
            name: "largest exponent-0 mantissa",
            bitrate: 262_143,
            ssrcs: [7],
            bytes: hex("8fce0005 00000001 00000000 52454d42 0103ffff 00000007")
        ),
        Case(
            name: "two SSRCs, exponent 23",
            bitrate: 0x3_B93B << 23,
            ssrcs: [0x2345_6789, 0x2B67_DF3B],
            bytes: hex("8fce0006 00000001 00000000 52454d42 025fb93b 23456789 2b67df3b")
        ),
        Case(
            name: "no SSRC, zero rate",
            bitrate: 0,
            ssrcs: [],
            bytes: hex("8fce0004 00000001 00000000 52454d42 00000000")
        ),
    ]

    @Test(arguments: cases) func encodes(_ c: Case) {
        let remb = RTCPReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: c.bitrate, ssrcs: c.ssrcs)
        #expect(RTCPPacket.receiverEstimatedMaxBitrate(remb).serialized() == c.bytes)
    }

    @Test(arguments: cases) func decodes(_ c: Case) throws {
        let remb = RTCPReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: c.bitrate, ssrcs: c.ssrcs)
        #expect(try RTCPPacket.parseCompound(c.bytes) == [.receiverEstimatedMaxBitrate(remb)])
    }

    @Test func rateIsRoundedDownToEighteenSignificantBits() {
        // 2^18 needs exponent 1; an odd rate above it loses its lowest bit.
        #expect(RTCPReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 262_145, ssrcs: []).bitrate == 262_144)
        #expect(RTCPReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 2_500_001, ssrcs: []).bitrate == 2_500_000)
    }

    @Test func otherApplicationFeedbackAndTruncatedREMBStayRaw() throws {
        let notREMB = hex("8fce0004 00000001 00000000 41424344 0103ffff")
        #expect(
            try RTCPPacket.parseCompound(notREMB) == [
                .other(packetType: 206, count: 15, body: Array(notREMB.dropFirst(4)))
            ]
        )
        // Claims two SSRCs, carries one.
        let short = hex("8fce0005 00000001 00000000 52454d42 0203ffff 00000007")
        #expect(
            try RTCPPacket.parseCompound(short) == [.other(packetType: 206, count: 15, body: Array(short.dropFirst(4)))]
        )
    }

    @Test func seededRatesRoundTripWithinOnePartIn2To17() throws {
        var rng = SeededRandom(seed: 0x5EB)
        for _ in 0..<2_000 {
            let rate = UInt64.random(in: 0...(1 << UInt64.random(in: 1...46, using: &rng)), using: &rng)
            let ssrcs = (0..<Int.random(in: 0...4, using: &rng)).map { _ in
                UInt32.random(in: 0...UInt32.max, using: &rng)
            }
            let remb = RTCPReceiverEstimatedMaxBitrate(
                senderSSRC: UInt32.random(in: 0...UInt32.max, using: &rng),
                bitrate: rate,
                ssrcs: ssrcs
            )
            #expect(remb.bitrate <= rate && rate - remb.bitrate <= rate >> 17)
            #expect(remb.ssrcs == ssrcs)
            let packet = RTCPPacket.receiverEstimatedMaxBitrate(remb)
            #expect(try RTCPPacket.parseCompound(packet.serialized()) == [packet])
        }
    }
}
