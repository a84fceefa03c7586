import Logging
import MediaCore
import StreamHub
import Telemetry
import TestSupport
import Testing
import WHIPIngest
import WebRTCTransport
import WebRTCWire

/// The receive counters a WHIP session reports to `/metrics`: loss seen, NACKs and PLIs sent, repairs received.
@Suite struct WHIPLossCountersTests {
    static func nackMessages(_ driver: PipelineDriver) -> Int {
        driver.rtcp.count { if case .genericNACK = $0 { true } else { false } }
    }

    @Test func anUnrepairedLossIsCountedAsLostNackedUnrecoveredAndAnsweredWithAPLI() throws {
        let golden = try GoldenPublisher(count: 30, gop: 20)
        var driver = PipelineDriver(
            WHIPMediaConfiguration(negotiation: try GoldenPublisher.negotiation(), localSSRC: 9)
        )
        let dropped = golden.units[5].packets[0].sequenceNumber
        var sent = 0
        for unit in golden.units {
            for packet in unit.packets where packet.sequenceNumber != dropped {
                driver.send(packet)
                sent += 1
            }
            driver.advance(.milliseconds(33))
        }
        let video = driver.pipeline.counters.video
        #expect(video.packetsReceived == sent && video.packetsLost == 1 && video.packetsUnrecovered == 1)
        #expect(video.nacksSent == Self.nackMessages(driver) && video.nacksSent >= 1)
        #expect(video.nackedPackets == driver.nacked.count && Set(driver.nacked) == [dropped])
        #expect(video.plisSent == driver.pliCount && video.plisSent == 2 && video.firsSent == 0)
        #expect(video.retransmissionsReceived == 0)
        #expect(driver.pipeline.counters.audio == WebRTCReceiveCounts())
    }

    @Test func aRetransmissionOnTheMediaPayloadTypeCountsAsRepairNotUnrecovered() throws {
        let golden = try GoldenPublisher(count: 20, gop: 20)
        var driver = PipelineDriver(
            WHIPMediaConfiguration(negotiation: try GoldenPublisher.negotiation(), localSSRC: 9)
        )
        let lost = golden.units[3].packets[0]
        for (index, unit) in golden.units.enumerated() {
            for packet in unit.packets where packet.sequenceNumber != lost.sequenceNumber { driver.send(packet) }
            // Without RTX (FFmpeg's WHIP muxer), the publisher resends the very packet.
            if index == 4 { driver.send(lost) }
            driver.advance(.milliseconds(20))
        }
        let video = driver.pipeline.counters.video
        #expect(video.packetsLost == 1 && video.retransmissionsReceived == 1 && video.packetsUnrecovered == 0)
        #expect(video.plisSent == 1)
        WHIPMediaPipelineTests.expectFramesMatch(driver.frames, golden.units[...])
    }

    @Test func aRetransmissionOverRTXIsNotCountedAsAMediaPacket() throws {
        let golden = try GoldenPublisher(count: 20, gop: 20)
        var driver = PipelineDriver(
            WHIPMediaConfiguration(negotiation: try GoldenPublisher.negotiation(rtx: true), localSSRC: 9)
        )
        let lost = golden.units[3].packets[0]
        var sent = 0
        for (index, unit) in golden.units.enumerated() {
            for packet in unit.packets where packet.sequenceNumber != lost.sequenceNumber {
                driver.send(packet)
                sent += 1
            }
            if index == 4 {
                driver.send(lost.wrappedForRetransmission(payloadType: 97, ssrc: 0x3333, sequenceNumber: 1))
            }
            driver.advance(.milliseconds(20))
        }
        let video = driver.pipeline.counters.video
        #expect(video.packetsReceived == sent && video.packetsLost == 1 && video.retransmissionsReceived == 1)
        #expect(video.packetsUnrecovered == 0)
    }

    /// Seeded: drop ~5 % of packets, resend about half of them a little later; every count balances.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func seededLossBalances(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let golden = try GoldenPublisher(count: 60, gop: 30)
        var driver = PipelineDriver(
            WHIPMediaConfiguration(negotiation: try GoldenPublisher.negotiation(), localSSRC: 9)
        )
        var dropped: [UInt16] = []
        var resent: Set<UInt16> = []
        var pending: [RTPPacket] = []
        var delivered = 0
        let all = golden.units.flatMap(\.packets)
        for (i, packet) in all.enumerated() {
            // Never the last packet: a trailing gap is not seen until a later packet arrives.
            if i > 0, i < all.count - 1, random.next() % 20 == 0 {
                dropped.append(packet.sequenceNumber)
                if random.next() % 2 == 0 { pending.append(packet) }
                continue
            }
            driver.send(packet)
            delivered += 1
            if i % 4 == 3 {
                // Repairs arrive one step (10 ms) after the packet that exposed their gap.
                for p in pending {
                    driver.send(p)
                    resent.insert(p.sequenceNumber)
                }
                pending.removeAll()
                driver.advance(.milliseconds(10))
            }
        }
        driver.advance(.seconds(1))
        let video = driver.pipeline.counters.video
        #expect(video.packetsReceived == delivered + resent.count)
        #expect(video.packetsLost == dropped.count)
        #expect(video.retransmissionsReceived == resent.count)
        #expect(video.packetsUnrecovered == dropped.count - resent.count)
        #expect(
            video.nacksSent == WHIPLossCountersTests.nackMessages(driver) && video.nackedPackets == driver.nacked.count
        )
        #expect(Set(driver.nacked) == Set(dropped))
    }

    /// The service's session limit, against a real transport on a loopback port: one more POST is 503.
    @Test func sessionLimitRefusesOneMoreSessionWith503() async throws {
        let transport = try await LoopbackTransport.started()
        var configuration = WHIPIngestConfiguration()
        configuration.maxSessions = 1
        configuration.additionalHosts = ["203.0.113.7"]
        let telemetry = GatewayTelemetry()
        let service = WHIPIngestService(
            transport: transport,
            hub: StreamHub(),
            telemetry: telemetry,
            configuration: configuration
        )
        let offer = GoldenPublisher.offer().description.text
        let created = try await service.createSession(streamKey: "first", offer: offer)
        let port = try #require(transport.candidates.first?.port)
        #expect(created.answer.contains("203.0.113.7 \(port) typ host"))
        #expect(telemetry.webrtc(stream: StreamKey("first")!)?.sessions == 1)
        await #expect {
            _ = try await service.createSession(streamKey: "second", offer: offer)
        } throws: { error in
            (error as? WHIPIngestError)?.httpStatus == 503
        }
        service.closeAll()
        await transport.shutdown()
    }

    /// `webrtc.max_offer_bytes`: an offer over the configured size is refused 413 before it is parsed; one under passes.
    @Test func offerLargerThanTheConfiguredLimitIsRefusedWith413() async throws {
        let transport = try await LoopbackTransport.started()
        let offer = GoldenPublisher.offer().description.text
        var configuration = WHIPIngestConfiguration()
        configuration.maxOfferBytes = offer.utf8.count - 1
        let strict = WHIPIngestService(transport: transport, hub: StreamHub(), configuration: configuration)
        await #expect {
            _ = try await strict.createSession(streamKey: "big", offer: offer)
        } throws: { error in
            (error as? WHIPIngestError)?.httpStatus == 413
        }
        configuration.maxOfferBytes = offer.utf8.count
        let fits = WHIPIngestService(transport: transport, hub: StreamHub(), configuration: configuration)
        _ = try await fits.createSession(streamKey: "fits", offer: offer)
        fits.closeAll()
        await transport.shutdown()
    }
}
