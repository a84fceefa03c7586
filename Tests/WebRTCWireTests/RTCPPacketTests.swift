import MediaCore
import TestSupport
import Testing
import WebRTCWire

/// One RTCP golden case shared by both directions.
struct RTCPCase: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let packet: RTCPPacket
    var testDescription: String { name }

    static let block = RTCPReportBlock(
        ssrc: 0x1122_3344,
        fractionLost: 0x40,
        cumulativeLost: -1,
        extendedHighestSequence: 0x0001_0005,
        jitter: 32,
        lastSenderReport: 0x3C6B_8000,
        delaySinceLastSenderReport: 0x0001_0000
    )

    static let all: [RTCPCase] = [
        RTCPCase(
            name: "sender report",
            bytes: hex("80c80006 11223344 e42a3c6b 80000000 00015f90 0000000a 000003e8"),
            packet: .senderReport(
                RTCPSenderReport(
                    ssrc: 0x1122_3344,
                    ntpTimestamp: 0xE42A_3C6B_8000_0000,
                    rtpTimestamp: 90_000,
                    packetCount: 10,
                    octetCount: 1000
                )
            )
        ),
        RTCPCase(
            name: "receiver report with one block",
            bytes: hex("81c90007 00000001 11223344 40ffffff 00010005 00000020 3c6b8000 00010000"),
            packet: .receiverReport(RTCPReceiverReport(ssrc: 1, reports: [block]))
        ),
        RTCPCase(
            name: "SDES CNAME",
            bytes: hex("81ca0003 11223344 01046162 63640000"),
            packet: .sourceDescription([.init(ssrc: 0x1122_3344, items: [.init(type: 1, text: "abcd")])])
        ),
        RTCPCase(name: "BYE", bytes: hex("81cb0001 11223344"), packet: .bye(RTCPBye(sources: [0x1122_3344]))),
        RTCPCase(
            name: "BYE with reason",
            bytes: hex("81cb0002 11223344 026f6b00"),
            packet: .bye(RTCPBye(sources: [0x1122_3344], reason: "ok"))
        ),
        RTCPCase(
            name: "generic NACK 100, 101, 103",
            bytes: hex("81cd0003 00000001 11223344 00640005"),
            packet: .genericNACK(RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 0x1122_3344, lost: [100, 101, 103]))
        ),
        RTCPCase(
            name: "generic NACK across the wrap",
            bytes: hex("81cd0004 00000001 11223344 ffff0005 00280000"),
            packet: .genericNACK(RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 0x1122_3344, lost: [65535, 0, 2, 40]))
        ),
        RTCPCase(
            name: "PLI",
            bytes: hex("81ce0002 00000001 11223344"),
            packet: .pictureLossIndication(senderSSRC: 1, mediaSSRC: 0x1122_3344)
        ),
        RTCPCase(
            name: "FIR",
            bytes: hex("84ce0004 00000001 00000000 11223344 07000000"),
            packet: .fullIntraRequest(
                RTCPFullIntraRequest(senderSSRC: 1, entries: [.init(ssrc: 0x1122_3344, sequenceNumber: 7)])
            )
        ),
        RTCPCase(
            name: "REMB stays raw",
            bytes: hex("8fce0004 00000001 00000000 52454d42 0103ffff"),
            packet: .other(packetType: 206, count: 15, body: hex("00000001 00000000 52454d42 0103ffff"))
        ),
    ]
}

/// RTCP compound parsing and building: SR, RR, SDES, BYE, NACK, PLI, FIR.
@Suite struct RTCPPacketTests {
    @Test(arguments: RTCPCase.all) func decodes(_ c: RTCPCase) throws {
        #expect(try RTCPPacket.parseCompound(c.bytes) == [c.packet])
    }

    @Test(arguments: RTCPCase.all) func encodes(_ c: RTCPCase) {
        #expect(c.packet.serialized() == c.bytes)
    }

    @Test func compoundSplitsIntoItsPackets() throws {
        let compound = RTCPCase.all[0].bytes + RTCPCase.all[2].bytes + RTCPCase.all[3].bytes
        #expect(
            try RTCPPacket.parseCompound(compound) == [
                RTCPCase.all[0].packet, RTCPCase.all[2].packet, RTCPCase.all[3].packet,
            ]
        )
        #expect(
            RTCPPacket.serializeCompound([RTCPCase.all[0].packet, RTCPCase.all[2].packet, RTCPCase.all[3].packet])
                == compound
        )
    }

    @Test func paddingIsStripped() throws {
        #expect(
            try RTCPPacket.parseCompound(hex("a1cb0002 11223344 00000004")) == [.bye(RTCPBye(sources: [0x1122_3344]))]
        )
        #expect(throws: WebRTCWireError.rtpBadField(field: "RTCP padding length", value: 9)) {
            try RTCPPacket.parseCompound(hex("a1cb0002 11223344 00000009"))
        }
    }

    @Test func rejectsTruncatedAndForeignPackets() {
        #expect(throws: WebRTCWireError.truncated(what: "RTCP packet", offset: 0, wanted: 28, available: 27)) {
            try RTCPPacket.parseCompound(Array(RTCPCase.all[0].bytes.dropLast()))
        }
        #expect(throws: WebRTCWireError.rtpBadVersion(0)) { try RTCPPacket.parseCompound(hex("01c90001 00000001")) }
        #expect(throws: WebRTCWireError.truncated(what: "RTCP packet type 201", offset: 4, wanted: 4, available: 0)) {
            try RTCPPacket.parseCompound(hex("81c90000"))
        }
    }

    @Test func senderReportMapsNTPToWallTime() {
        guard case .senderReport(let sr) = RTCPCase.all[0].packet else { return }
        #expect(sr.wallTime == WallTime(nanosecondsSince1970: 1_618_984_427_500_000_000))
        #expect(RTCPSenderReport.ntpTimestamp(sr.wallTime) == sr.ntpTimestamp)
        #expect(sr.compactNTP == 0x3C6B_8000)
        #expect(RTCPCase.block.delaySinceLastSenderReportDuration == .seconds(1))
        #expect(RTCPReportBlock.dlsr(.milliseconds(1500)) == 0x0001_8000)
    }

    @Test func randomBytesNeverCrash() {
        var rng = SeededRandom(seed: 0x7C9)
        for i in 0..<4_000 {
            var bytes = rng.mutate(RTCPCase.all[i % RTCPCase.all.count].bytes)
            if i % 2 == 1 { bytes = rng.bytes(Int.random(in: 0...48, using: &rng)) }
            if i % 3 == 0, !bytes.isEmpty { bytes[0] = 0x80 | bytes[0] & 0x3F }
            _ = try? RTCPPacket.parseCompound(bytes)
        }
    }

    @Test func randomNACKsRoundTrip() throws {
        var rng = SeededRandom(seed: 0x7CA)
        for _ in 0..<1_000 {
            let start = UInt16.random(in: 0...UInt16.max, using: &rng)
            var lost: [UInt16] = []
            var next = start
            for _ in 0..<Int.random(in: 1...40, using: &rng) {
                lost.append(next)
                next &+= UInt16.random(in: 1...30, using: &rng)
            }
            let nack = RTCPPacket.genericNACK(RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 2, lost: lost))
            #expect(try RTCPPacket.parseCompound(nack.serialized()) == [nack])
        }
    }
}
