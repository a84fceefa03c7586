import MediaCore
import Testing
import WebRTCWire

@testable import WHEPEgress

/// The shared per-track sender: RTP once per stream, SPS/PPS in band, history for NACKs, sender reports.
@Suite("WHEP track sender")
struct WHEPTrackSenderTests {
    /// SPS and PPS of an x264 constrained-baseline 320x240 stream, as an avcC.
    static let sps: [UInt8] = [
        0x67, 0x42, 0xC0, 0x0D, 0xD9, 0x01, 0x41, 0xFB, 0x01, 0x10, 0x00, 0x00, 0x03, 0x00, 0x10,
    ]
    static let pps: [UInt8] = [0x68, 0xCB, 0x83, 0xCB, 0x20]
    static let avcC: [UInt8] =
        [1, 0x42, 0xC0, 0x0D, 0xFF, 0xE1, 0, UInt8(sps.count)] + sps + [1, 0, UInt8(pps.count)] + pps

    static func avcc(_ nals: [[UInt8]]) -> [UInt8] {
        nals.flatMap { WHEPTrackSender.lengthPrefix($0.count) + $0 }
    }

    static func frame(_ nals: [[UInt8]], keyframe: Bool, pts: Int64) -> MediaFrame {
        MediaFrame(
            kind: .video,
            dts: MediaTime(value: pts, timescale: 90_000),
            isKeyframe: keyframe,
            data: avcc(nals)
        )
    }

    @Test func keyframesGetParameterSetsInBandAndBigSlicesSplitIntoFUA() throws {
        var sender = WHEPTrackSender(kind: .video, ssrc: 7, historyCapacity: 64, maxPayloadSize: 1_200)
        sender.setDecoderConfiguration(Self.avcC)
        let idr = [0x65] + [UInt8](repeating: 0xAB, count: 3_000)
        let packets = try sender.packetize(video: Self.frame([idr], keyframe: true, pts: 9_000), wall: .now())
            .map { try RTPPacket(parsing: $0) }
        // STAP-A (SPS + PPS), then 3 FU-A fragments of the 3001-byte IDR slice under a 1200-byte payload.
        #expect(packets.count == 4)
        #expect(packets[0].payload.first.map { $0 & 0x1F } == 24)
        #expect(packets[1...].allSatisfy { $0.payload[0] & 0x1F == 28 && $0.payload.count <= 1_200 })
        #expect(packets.map(\.marker) == [false, false, false, true])
        #expect(Set(packets.map(\.timestamp)).count == 1)
        #expect(packets.allSatisfy { $0.ssrc == 7 && $0.payloadType == WHEPTrackSender.placeholderPayloadType })
        let sequence = packets.map(\.sequenceNumber)
        #expect(zip(sequence, sequence.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
    }

    @Test func deltaFramesCarryNoParameterSetsAndTimestampsFollowPresentationTime() throws {
        var sender = WHEPTrackSender(kind: .video, ssrc: 7, historyCapacity: 64, maxPayloadSize: 1_200)
        sender.setDecoderConfiguration(Self.avcC)
        let a = try sender.packetize(video: Self.frame([[0x41, 1, 2, 3]], keyframe: false, pts: 3_000), wall: .now())
        let b = try sender.packetize(video: Self.frame([[0x41, 4, 5, 6]], keyframe: false, pts: 6_000), wall: .now())
        let pa = try RTPPacket(parsing: a[0])
        let pb = try RTPPacket(parsing: b[0])
        #expect(a.count == 1 && pa.payload == [0x41, 1, 2, 3])
        #expect(pb.timestamp &- pa.timestamp == 3_000)
        #expect(pb.sequenceNumber == pa.sequenceNumber &+ 1)
    }

    @Test func historyAnswersNACKsUntilOverwritten() throws {
        var sender = WHEPTrackSender(kind: .audio, ssrc: 9, historyCapacity: 4, maxPayloadSize: 1_200)
        var sent: [[UInt8]] = []
        for n in 0..<6 {
            let opus = MediaFrame(
                kind: .audio,
                dts: MediaTime(value: Int64(n * 960), timescale: 48_000),
                isKeyframe: true,
                data: [UInt8(n)]
            )
            sent += sender.packetize(audio: opus, wall: .now())
        }
        let sequences = try sent.map { try RTPPacket(parsing: $0).sequenceNumber }
        // The last four are kept byte for byte; the first two were overwritten.
        for (index, sequence) in sequences.enumerated() {
            #expect(sender.history.packet(sequence) == (index >= 2 ? sent[index] : nil))
        }
        #expect(try RTPPacket(parsing: sent[0]).marker)
        #expect(try !RTPPacket(parsing: sent[1]).marker)
    }

    @Test func aNewSessionContinuesSequenceNumbersAndTimestampsAcrossThePause() throws {
        var sender = WHEPTrackSender(kind: .audio, ssrc: 9, historyCapacity: 4, maxPayloadSize: 1_200)
        let wall = WallTime.now()
        func opus(_ samples: Int64) -> MediaFrame {
            MediaFrame(kind: .audio, dts: MediaTime(value: samples, timescale: 48_000), isKeyframe: true, data: [1])
        }
        let last = try RTPPacket(parsing: sender.packetize(audio: opus(96_000), wall: wall)[0])
        sender.continueAfterGap()
        // The reconnected publisher's clock restarts at 0, two seconds later.
        let first = try RTPPacket(parsing: sender.packetize(audio: opus(0), wall: wall.advanced(by: .seconds(2)))[0])
        let second = try RTPPacket(parsing: sender.packetize(audio: opus(960), wall: wall.advanced(by: .seconds(2)))[0])
        #expect(first.sequenceNumber == last.sequenceNumber &+ 1 && first.ssrc == last.ssrc)
        #expect(first.timestamp &- last.timestamp == 96_000)
        #expect(second.timestamp &- first.timestamp == 960)
    }

    @Test func senderReportAdvancesTheRTPClockByTheWallTimeSinceTheLastFrame() throws {
        var sender = WHEPTrackSender(kind: .audio, ssrc: 9, historyCapacity: 4, maxPayloadSize: 1_200)
        let wall = WallTime.now()
        #expect(sender.senderReport(at: wall) == nil)
        let opus = MediaFrame(kind: .audio, dts: MediaTime(value: 0, timescale: 48_000), isKeyframe: true, data: [1])
        let packet = try RTPPacket(parsing: sender.packetize(audio: opus, wall: wall)[0])
        let report = try #require(sender.senderReport(at: wall.advanced(by: .milliseconds(500))))
        #expect(report.rtpTimestamp &- packet.timestamp == 24_000)
        #expect(report.packetCount == 1 && report.octetCount == 1 && report.ssrc == 9)
    }
}
