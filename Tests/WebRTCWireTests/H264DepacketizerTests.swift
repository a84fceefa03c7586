import CodecFormats
import MediaCore
import TestSupport
import Testing
import WebRTCWire

/// One byte-level depacketizer case: payloads in, actions out.
struct DepacketizerCase: Sendable, CustomTestStringConvertible {
    let name: String
    /// (sequence, timestamp, marker, payload hex)
    let packets: [(UInt16, UInt32, Bool, String)]
    let expected: [H264Depacketizer.Action]
    var testDescription: String { name }

    static let spsPPS = "78 000b 6742e01fda014016ec0440 0004 68ce3c80"
    static let avc = AVCDecoderConfigurationRecord(sps: TestNAL.sps, pps: TestNAL.pps)
    static let keyframeAVCC = "0000000b 6742e01fda014016ec0440 00000004 68ce3c80 00000003 658801"

    static let all: [DepacketizerCase] = [
        DepacketizerCase(
            name: "STAP-A parameter sets then a single-NAL IDR",
            packets: [(1, 9000, false, spsPPS), (2, 9000, true, "65 8801")],
            expected: [
                .accessUnit(
                    .init(timestamp: 9000, data: hex(keyframeAVCC), isKeyframe: true, decoderConfiguration: avc)
                )
            ]
        ),
        DepacketizerCase(
            name: "FU-A start, middle, end rebuild the NAL header from indicator and FU header",
            packets: [
                (1, 0, false, spsPPS), (2, 0, false, "7c85 0102"), (3, 0, false, "7c05 0304"), (4, 0, true, "7c45 05"),
            ],
            expected: [
                .accessUnit(
                    .init(
                        timestamp: 0,
                        data: hex("0000000b 6742e01fda014016ec0440 00000004 68ce3c80 00000006 650102030405"),
                        isKeyframe: true,
                        decoderConfiguration: avc
                    )
                )
            ]
        ),
        DepacketizerCase(
            name: "a timestamp change closes an access unit whose marker was never set",
            packets: [(7, 100, false, spsPPS), (8, 100, false, "65 8801"), (9, 3100, true, "41 9a")],
            expected: [
                .accessUnit(
                    .init(timestamp: 100, data: hex(keyframeAVCC), isKeyframe: true, decoderConfiguration: avc)
                ),
                .accessUnit(.init(timestamp: 3100, data: hex("00000002 419a"), isKeyframe: false)),
            ]
        ),
        DepacketizerCase(
            name: "a P-frame before any IDR is dropped and asks for a keyframe once",
            packets: [
                (1, 0, true, "41 9a"), (2, 3000, true, "41 9b"), (3, 6000, false, spsPPS), (4, 6000, true, "65 8801"),
            ],
            expected: [
                .needsKeyframe(.waitingForFirstKeyframe),
                .accessUnit(
                    .init(timestamp: 6000, data: hex(keyframeAVCC), isKeyframe: true, decoderConfiguration: avc)
                ),
            ]
        ),
        DepacketizerCase(
            name: "a lost FU-A middle drops the access unit and the P-frames until the next IDR",
            packets: [
                (1, 0, false, spsPPS), (2, 0, true, "65 8801"), (3, 3000, false, "7c81 01"), (5, 3000, true, "7c41 03"),
                (6, 6000, true, "41 9a"), (7, 9000, false, spsPPS), (8, 9000, true, "65 8801"),
            ],
            expected: [
                .accessUnit(.init(timestamp: 0, data: hex(keyframeAVCC), isKeyframe: true, decoderConfiguration: avc)),
                .needsKeyframe(.packetLoss(missing: 1)),
                .accessUnit(
                    .init(timestamp: 9000, data: hex(keyframeAVCC), isKeyframe: true, decoderConfiguration: avc)
                ),
            ]
        ),
        DepacketizerCase(
            name: "a loss at an access-unit boundary also drops the access unit after the gap",
            packets: [
                (1, 0, false, spsPPS), (2, 0, true, "65 8801"), (4, 6000, false, spsPPS), (5, 6000, true, "65 8801"),
                (6, 9000, false, spsPPS), (7, 9000, true, "65 8801"),
            ],
            expected: [
                .accessUnit(.init(timestamp: 0, data: hex(keyframeAVCC), isKeyframe: true, decoderConfiguration: avc)),
                .needsKeyframe(.packetLoss(missing: 1)),
                .accessUnit(
                    .init(timestamp: 9000, data: hex(keyframeAVCC), isKeyframe: true, decoderConfiguration: avc)
                ),
            ]
        ),
        DepacketizerCase(
            name: "an FU-A without its start is corrupt",
            packets: [
                (1, 0, false, spsPPS), (2, 0, true, "65 8801"), (3, 3000, true, "7c41 03"), (4, 6000, true, "41 9a"),
            ],
            expected: [
                .accessUnit(.init(timestamp: 0, data: hex(keyframeAVCC), isKeyframe: true, decoderConfiguration: avc)),
                .needsKeyframe(.corruptPayload),
            ]
        ),
        DepacketizerCase(
            name: "parameter sets with a marker of their own join the next picture",
            packets: [
                (1, 0, true, spsPPS), (2, 0, true, "65 8801"), (3, 3000, true, spsPPS), (4, 6000, true, "65 8801"),
            ],
            expected: [
                .accessUnit(.init(timestamp: 0, data: hex(keyframeAVCC), isKeyframe: true, decoderConfiguration: avc)),
                .accessUnit(
                    .init(timestamp: 6000, data: hex(keyframeAVCC), isKeyframe: true, decoderConfiguration: avc)
                ),
            ]
        ),
        DepacketizerCase(
            name: "STAP-B is refused",
            packets: [(1, 0, true, "79 0000 0002 419a")],
            expected: [.needsKeyframe(.unsupportedPayload(nalType: 25))]
        ),
        DepacketizerCase(
            name: "duplicates and empty padding packets change nothing",
            packets: [(1, 0, false, spsPPS), (1, 0, false, spsPPS), (2, 0, false, ""), (3, 0, true, "65 8801")],
            expected: [
                .accessUnit(.init(timestamp: 0, data: hex(keyframeAVCC), isKeyframe: true, decoderConfiguration: avc))
            ]
        ),
    ]
}

/// RFC 6184 depacketization, loss handling and keyframe detection.
@Suite struct H264DepacketizerTests {
    @Test(arguments: DepacketizerCase.all) func depacketizes(_ c: DepacketizerCase) {
        var depacketizer = H264Depacketizer()
        var actions: [H264Depacketizer.Action] = []
        for (sequence, timestamp, marker, payload) in c.packets {
            let packet = RTPPacket(
                marker: marker,
                payloadType: 96,
                sequenceNumber: sequence,
                timestamp: timestamp,
                ssrc: 1,
                payload: hex(payload)
            )
            actions += depacketizer.push(packet)
        }
        #expect(actions == c.expected)
    }

    @Test func withoutDropUntilKeyframeOnlyTheDamagedAccessUnitIsLost() {
        var depacketizer = H264Depacketizer(configuration: .init(dropUntilKeyframe: false))
        var actions: [H264Depacketizer.Action] = []
        let packets: [(UInt16, UInt32, String)] = [
            (1, 0, DepacketizerCase.spsPPS), (2, 0, "65 8801"), (4, 3000, "41 9a"), (5, 6000, "41 9b"),
        ]
        for (sequence, timestamp, payload) in packets {
            actions += depacketizer.push(
                RTPPacket(
                    marker: sequence != 1,
                    payloadType: 96,
                    sequenceNumber: sequence,
                    timestamp: timestamp,
                    ssrc: 1,
                    payload: hex(payload)
                )
            )
        }
        #expect(actions.count == 3)
        #expect(actions[1] == .needsKeyframe(.packetLoss(missing: 1)))
        #expect(actions[2] == .accessUnit(.init(timestamp: 6000, data: hex("00000002 419b"), isKeyframe: false)))
    }

    @Test(arguments: [1_200, 300, 80]) func packetizedGOPsComeBackIdentical(mtu: Int) {
        var packetizer = H264TestPacketizer(sequence: 65_500, mtu: mtu)
        var depacketizer = H264Depacketizer()
        let gop = TestNAL.gop(count: 12, seed: mtu)
        var units: [H264AccessUnit] = []
        for (i, nals) in gop.enumerated() {
            for packet in packetizer.packetize(nals, timestamp: UInt32.max - 6_000 &+ UInt32(i * 3_000)) {
                for case .accessUnit(let unit) in depacketizer.push(packet) { units.append(unit) }
            }
        }
        #expect(units.map(\.data) == gop.map(TestNAL.avcc))
        #expect(units.map(\.isKeyframe) == [true] + Array(repeating: false, count: 11))
        #expect(units[0].decoderConfiguration == DepacketizerCase.avc)
    }

    @Test func senderRestartFarBehindStartsOverAtItsKeyframe() {
        var depacketizer = H264Depacketizer()
        var actions: [H264Depacketizer.Action] = []
        let packets: [(UInt16, UInt32, Bool, String)] = [
            (30_000, 0, false, DepacketizerCase.spsPPS), (30_001, 0, true, "65 8801"),
            (5, 90_000, false, DepacketizerCase.spsPPS), (6, 90_000, true, "65 8801"),
            (7, 93_000, false, DepacketizerCase.spsPPS), (8, 93_000, true, "65 8801"),
        ]
        for (sequence, timestamp, marker, payload) in packets {
            actions += depacketizer.push(
                RTPPacket(
                    marker: marker,
                    payloadType: 96,
                    sequenceNumber: sequence,
                    timestamp: timestamp,
                    ssrc: 1,
                    payload: hex(payload)
                )
            )
        }
        let timestamps = actions.compactMap { if case .accessUnit(let unit) = $0 { unit.timestamp } else { nil } }
        #expect(timestamps == [0, 90_000, 93_000] && actions.count == 3)
    }

    @Test func accessUnitBecomesAHubFrame() {
        let unit = H264AccessUnit(timestamp: 90_000, data: [0, 0, 0, 1, 0x65], isKeyframe: true)
        let frame = unit.mediaFrame(dts: .init(value: 90_000, timescale: 90_000))
        #expect(frame.kind == .video && frame.isKeyframe && frame.data == unit.data && frame.pts.seconds == 1)
    }
}
