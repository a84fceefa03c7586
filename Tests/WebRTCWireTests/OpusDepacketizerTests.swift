import MediaCore
import Testing
import WebRTCWire

/// RFC 7587 Opus payloads and timestamp unwrapping.
@Suite struct OpusDepacketizerTests {
    @Test func onePacketIsOneFrame() {
        var depacketizer = OpusDepacketizer()
        let packets: [(UInt16, UInt32, [UInt8])] = [
            (1, 0, [0xFC, 1]), (2, 960, [0xFC, 2]), (2, 960, [0xFC, 2]), (5, 3840, [0xFC, 5]), (6, 4800, []),
        ]
        let frames = packets.compactMap {
            depacketizer.push(
                RTPPacket(payloadType: 111, sequenceNumber: $0.0, timestamp: $0.1, ssrc: 1, payload: $0.2)
            )
        }
        #expect(
            frames == [
                OpusFrame(timestamp: 0, data: [0xFC, 1]), OpusFrame(timestamp: 960, data: [0xFC, 2]),
                OpusFrame(timestamp: 3840, data: [0xFC, 5]),
            ]
        )
        #expect(depacketizer.lostPackets == 2)
    }

    @Test func tocGivesTheSampleCount() {
        // RFC 6716 §3.1: config 31 code 0 = CELT 20 ms; config 1 code 1 = two SILK 20 ms; code 3 with M=3.
        let table: [([UInt8], Int?)] = [
            ([0xF8], 960), ([0xFC], 960), ([0x09], 1920), ([0x03, 0x03], 1440), ([0x7B, 0x02], 1920), ([0x03], nil),
            ([], nil),
        ]
        for (data, samples) in table { #expect(OpusFrame(timestamp: 0, data: data).sampleCount == samples, "\(data)") }
    }

    @Test func timestampsUnwrapAcrossTheWrap() {
        var unwrapper = RTPTimestampUnwrapper()
        let values = [UInt32.max - 959, 0, UInt32.max - 1919, 960].map { unwrapper.unwrap($0) }
        let base = Int64(UInt32.max) - 959
        #expect(values == [base, base + 960, base - 960, base + 1920])
        #expect(unwrapper.mediaTime(1920, clockRate: 48_000) == .init(value: base + 2880, timescale: 48_000))
    }
}
