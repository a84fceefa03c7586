import MediaCore
import Telemetry
import Testing
import WHIPIngest
import WebRTCWire

/// Lost Opus packets are filled with silence, so the AAC timeline stays on the RTP clock (no drift against video).
@Suite struct WHIPAudioConcealmentTests {
    /// RFC 6716 §3.1: a 20 ms CELT silence frame, a valid packet for the real decoder.
    static let silence: [UInt8] = [0xF8, 0xFF, 0xFE]

    /// Publishes 40 video frames and 100 Opus packets (20 ms each), interleaved, without the packets in `dropped`.
    static func run(dropping dropped: Set<Int>) throws -> PipelineDriver {
        let golden = try GoldenPublisher(count: 40, gop: 20)
        var driver = PipelineDriver(
            WHIPMediaConfiguration(negotiation: try GoldenPublisher.negotiation(audio: true), localSSRC: 9)
        )
        var video = golden.units.makeIterator()
        for i in 0..<100 {
            if !dropped.contains(i) {
                let packet = RTPPacket(
                    payloadType: WHIPPublisherOffer.audioPayloadType,
                    sequenceNumber: UInt16(1_000 + i),
                    timestamp: UInt32(7_000 + i * 960),
                    ssrc: 0x2222,
                    payload: silence
                )
                driver.send(packet)
            }
            if i % 5 < 2, let unit = video.next() { for packet in unit.packets { driver.send(packet) } }
            driver.advance(.milliseconds(20))
        }
        driver.advance(.seconds(1))
        return driver
    }

    static func audio(_ driver: PipelineDriver) -> [MediaFrame] { driver.frames.filter { $0.kind == .audio } }

    @Test func lostPacketsAreConcealedAndTheAudioTimelineMatchesTheLosslessOne() throws {
        let clean = try Self.run(dropping: [])
        let lossy = try Self.run(dropping: [30, 31, 55, 70, 88])
        let cleanAudio = Self.audio(clean)
        let lossyAudio = Self.audio(lossy)
        #expect(cleanAudio.count > 80 && lossyAudio.count == cleanAudio.count)
        #expect(lossyAudio.last?.dts == cleanAudio.last?.dts && lossyAudio.first?.dts == cleanAudio.first?.dts)
        #expect(lossy.pipeline.counters.audioConcealedFrames == 5 && clean.pipeline.counters.audioConcealedFrames == 0)
        let counts = lossy.pipeline.counters.audio
        #expect(counts.packetsReceived == 95 && counts.packetsLost == 5 && counts.packetsUnrecovered == 5)
        #expect(counts.nacksSent == 0 && lossy.nacked.isEmpty)
    }

    /// WHEP sends WHIP's Opus as it came: every frame (concealed ones included) on the timeline the AAC follows.
    @Test func opusFramesAreHandedOnUntouchedOnTheHubsTimeline() throws {
        let lossy = try Self.run(dropping: [30, 31])
        let opus = lossy.originalAudio
        // 100 sent, 2 lost and concealed; Opus that arrives before the stream is described is not handed on.
        #expect(opus.count >= 95 && opus.count <= 100)
        #expect(opus.allSatisfy { $0.kind == .audio && $0.data == Self.silence })
        let steps = zip(opus, opus.dropFirst()).map { ($1.dts - $0.dts).converted(to: 48_000).value }
        #expect(steps.allSatisfy { $0 == 960 })
        let aac = Self.audio(lossy)
        let gap = (aac[0].dts - opus[0].dts).converted(to: 48_000).value
        // The AAC starts where the Opus starts, give or take the encoder's 1024-sample frame.
        #expect(abs(gap) <= 1_024)
    }
}
