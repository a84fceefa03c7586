import FFmpegBridge
import MediaCore
import Testing
import WHIPIngest
import WebRTCWire

/// The WHIP media pipeline against golden x264 packet sequences: frames, timeline, NACK, PLI, RTX, receiver reports.
@Suite struct WHIPMediaPipelineTests {
    static func expectFramesMatch(_ out: [MediaFrame], _ units: ArraySlice<GoldenPublisher.Unit>) {
        #expect(out.count == units.count)
        guard let first = units.first else { return }
        for (frame, unit) in zip(out, units) {
            #expect(frame.kind == .video && frame.data == unit.frame.data && frame.isKeyframe == unit.frame.isKeyframe)
            let expected = unit.frame.dts.converted(to: 90_000) - first.frame.dts.converted(to: 90_000)
            #expect(frame.dts - out[0].dts == expected)
            #expect(frame.stamps.firstByte != nil && frame.stamps.ingested != nil && frame.stamps.ingestWall != nil)
        }
    }

    @Test func framesOutEqualFramesInWithTheSourceDescription() throws {
        let golden = try GoldenPublisher(count: 40, gop: 20)
        var driver = PipelineDriver(
            WHIPMediaConfiguration(negotiation: try GoldenPublisher.negotiation(), localSSRC: 9)
        )
        for unit in golden.units {
            for packet in unit.packets { driver.send(packet) }
            driver.advance(.milliseconds(33))
        }
        Self.expectFramesMatch(driver.frames, golden.units[...])
        #expect(driver.descriptions.count == 1)
        let video = try #require(driver.descriptions.first?.video)
        #expect(video.width == 320 && video.height == 180 && video.codec == .h264)
        #expect(driver.pliCount == 1 && driver.nacked.isEmpty && driver.warnings.isEmpty)
        #expect(driver.frames.first?.dts == MediaTime(value: 0, timescale: 90_000))
    }

    @Test func reorderedPacketsStillComeOutInOrder() throws {
        let golden = try GoldenPublisher(count: 20, gop: 20)
        var driver = PipelineDriver(
            WHIPMediaConfiguration(negotiation: try GoldenPublisher.negotiation(), localSSRC: 9)
        )
        var packets = golden.units.flatMap(\.packets)
        // Swap every third pair: each packet arrives one place late.
        for i in stride(from: 1, to: packets.count - 1, by: 3) { packets.swapAt(i, i + 1) }
        for (i, packet) in packets.enumerated() {
            driver.send(packet)
            if i % 5 == 4 { driver.advance(.milliseconds(10)) }
        }
        Self.expectFramesMatch(driver.frames, golden.units[...])
        #expect(driver.pliCount == 1 && driver.pipeline.counters.lostPackets == 0)
    }

    @Test func lostPacketIsNackedThenGivenUpWithAPictureLossIndication() throws {
        let golden = try GoldenPublisher(count: 40, gop: 20)
        var driver = PipelineDriver(
            WHIPMediaConfiguration(negotiation: try GoldenPublisher.negotiation(), localSSRC: 9)
        )
        let dropped = golden.units[5].packets[0].sequenceNumber
        for unit in golden.units {
            for packet in unit.packets where packet.sequenceNumber != dropped { driver.send(packet) }
            driver.advance(.milliseconds(33))
        }
        #expect(driver.nacked.contains(dropped))
        #expect(driver.pliCount == 2 && driver.pipeline.counters.lostPackets == 1)
        // Frames 0…4 are whole; 5…19 cannot decode without the lost slice; the next IDR (20) recovers.
        Self.expectFramesMatch(Array(driver.frames.prefix(5)), golden.units[0..<5])
        #expect(driver.frames.dropFirst(5).first?.data == golden.units[20].frame.data)
        #expect(driver.frames.count == 5 + 20)
    }

    @Test func retransmissionOverRTXFillsTheGap() throws {
        let golden = try GoldenPublisher(count: 20, gop: 20)
        var driver = PipelineDriver(
            WHIPMediaConfiguration(negotiation: try GoldenPublisher.negotiation(rtx: true), localSSRC: 9)
        )
        let lost = golden.units[3].packets[0]
        for (index, unit) in golden.units.enumerated() {
            for packet in unit.packets where packet.sequenceNumber != lost.sequenceNumber { driver.send(packet) }
            if index == 4 {
                #expect(driver.nacked == [lost.sequenceNumber])
                driver.send(lost.wrappedForRetransmission(payloadType: 97, ssrc: 0x3333, sequenceNumber: 1))
            }
            driver.advance(.milliseconds(20))
        }
        Self.expectFramesMatch(driver.frames, golden.units[...])
        #expect(driver.pipeline.counters.retransmissionsReceived == 1 && driver.pipeline.counters.lostPackets == 0)
    }

    @Test func publisherWithoutPLIGetsNoKeyframeRequests() throws {
        let golden = try GoldenPublisher(count: 25, gop: 20)
        let configuration = WHIPMediaConfiguration(
            negotiation: try GoldenPublisher.negotiation(feedback: false),
            localSSRC: 9
        )
        #expect(configuration.keyframeRequest == .unavailable && configuration.sendsNACK)
        var driver = PipelineDriver(configuration)
        for (index, unit) in golden.units.enumerated() {
            for packet in unit.packets where index != 2 { driver.send(packet) }
            driver.advance(.milliseconds(33))
        }
        #expect(driver.pliCount == 0 && !driver.nacked.isEmpty)
        #expect(driver.frames.count == 2 + 5)
    }

    @Test func receiverReportsGoOutAboutOncePerSecond() throws {
        let golden = try GoldenPublisher(count: 60, gop: 30)
        var driver = PipelineDriver(
            WHIPMediaConfiguration(negotiation: try GoldenPublisher.negotiation(), localSSRC: 9)
        )
        for unit in golden.units {
            for packet in unit.packets { driver.send(packet) }
            driver.advance(.milliseconds(50))
        }
        let reports = driver.rtcp.compactMap { if case .receiverReport(let r) = $0 { r } else { nil } }
        #expect(reports.count == 3)
        #expect(reports.allSatisfy { $0.ssrc == 9 && $0.reports.map(\.ssrc) == [GoldenPublisher.videoSSRC] })
    }

    @Test func senderReportBecomesTheCaptureStamp() throws {
        let golden = try GoldenPublisher(count: 3, gop: 20)
        var driver = PipelineDriver(
            WHIPMediaConfiguration(negotiation: try GoldenPublisher.negotiation(), localSSRC: 9)
        )
        let capture = WallTime(millisecondsSince1970: 1_700_000_000_000)
        let report = RTCPSenderReport(
            ssrc: GoldenPublisher.videoSSRC,
            ntpTimestamp: RTCPSenderReport.ntpTimestamp(capture),
            rtpTimestamp: golden.units[0].timestamp,
            packetCount: 0,
            octetCount: 0,
            reports: []
        )
        driver.collect(
            driver.pipeline.receivedRTCP(RTCPPacket.serializeCompound([.senderReport(report)]), now: driver.now)
        )
        for unit in golden.units { for packet in unit.packets { driver.send(packet) } }
        let stamps = driver.frames.compactMap(\.stamps.capture).map(\.millisecondsSince1970)
        let start = golden.units[0].frame.dts
        let expected: [Int64] = golden.units.map { unit in
            let elapsed: MediaTime = unit.frame.dts - start
            return 1_700_000_000_000 + elapsed.converted(to: 1_000).value
        }
        // NTP fractions round to the millisecond either way.
        #expect(stamps.count == expected.count && zip(stamps, expected).allSatisfy { abs($0 - $1) <= 1 })
    }

    @Test func videoWaitsBrieflyForSilentAudioThenIsDescribedAlone() throws {
        let golden = try GoldenPublisher(count: 40, gop: 20)
        var driver = PipelineDriver(
            WHIPMediaConfiguration(negotiation: try GoldenPublisher.negotiation(audio: true), localSSRC: 9)
        )
        for unit in golden.units.prefix(20) {
            for packet in unit.packets { driver.send(packet) }
            driver.advance(.milliseconds(33))
        }
        #expect(driver.descriptions.isEmpty && driver.frames.isEmpty)
        for unit in golden.units.dropFirst(20) {
            for packet in unit.packets { driver.send(packet) }
            driver.advance(.milliseconds(33))
        }
        #expect(driver.descriptions.count == 1 && driver.descriptions.first?.audio == nil)
        Self.expectFramesMatch(driver.frames, golden.units[...])
    }

    @Test func malformedPacketsAreCountedNotFatal() {
        var driver = PipelineDriver(
            WHIPMediaConfiguration(negotiation: try! GoldenPublisher.negotiation(), localSSRC: 9)
        )
        driver.collect(driver.pipeline.receivedRTP([0x00, 1, 2], now: driver.now, wall: .now()))
        driver.collect(driver.pipeline.receivedRTCP([0x80, 200], now: driver.now))
        #expect(driver.pipeline.counters.malformedPackets == 2 && driver.warnings.count == 2 && driver.frames.isEmpty)
    }
}
