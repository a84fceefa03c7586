import FFmpegBridge
import Logging
import MediaCore
import StreamHub
import Synchronization
import Testing
import WHIPIngest
import WHIPPublish
import WebRTCTransport

/// Our publisher into our ingest over real loopback UDP: ICE checks, DTLS 1.2, SRTP, RTP/RTCP both ways.
@Suite struct WHIPLoopbackPublishTests {
    @Test func testPatternArrivesAsH264KeyframesAndAACInTheHub() async throws {
        var configuration = WebRTCTransportConfiguration()
        configuration.port = 0
        let transport = WebRTCTransportService(configuration: configuration, certificate: try DTLSCertificate())
        try await transport.start()
        let hub = StreamHub()
        let ingest = WHIPIngestService(transport: transport, hub: hub)
        let signaling = InProcessSignaling(ingest: ingest, hub: hub)
        var options = WHIPPublisher.Options(duration: .seconds(4))
        options.signaling = signaling
        var quiet = Logger(label: "test.whip.publish")
        quiet.logLevel = .warning
        let publisher = try WHIPPublisher(url: "http://127.0.0.1:1/whip/loop", options: options, logger: quiet)
        let input = try TestPatternSource(
            configuration: .init(
                width: 320,
                height: 180,
                fps: 30,
                gop: 30,
                videoBitRate: 500_000,
                duration: .seconds(5)
            )
        )

        let report = try await publisher.publish(source: input)
        let reader = try #require(signaling.reader.withLock { $0 })
        var description: StreamDescription?
        var video: [MediaFrame] = []
        var audio: [MediaFrame] = []
        var ended = false
        while let event = await reader.next() {
            switch event {
            case .description(let d): description = d
            case .frame(let f): if f.kind == .video { video.append(f) } else { audio.append(f) }
            case .ended: ended = true
            }
            if ended { break }
        }
        #expect(ended)
        #expect(description?.video?.width == 320 && description?.video?.height == 180)
        #expect(description?.audio?.codec == .aac && description?.audio?.sampleRate == 48_000)
        // 4 s at 30 fps; the first frames may wait on ICE/DTLS for nothing: the pump starts after SRTP is keyed.
        #expect(report.videoFrames == 120 && video.count >= 115)
        #expect(video.filter(\.isKeyframe).count >= 4)
        #expect(video.first?.isKeyframe == true)
        // The release-time SEI is the capture clock, and it arrives within a second of being stamped.
        #expect(
            video.allSatisfy { f in
                guard let capture = f.stamps.capture, let ingest = f.stamps.ingestWall else { return false }
                return ingest.duration(since: capture) < .seconds(1)
            }
        )
        // 200 Opus frames of 20 ms became about 4 s of AAC (1024 samples each): ~187.
        #expect(report.audioFrames >= 195 && audio.count >= 170)
        #expect(report.sender.senderReportsSent >= 3)
        #expect(report.sender.keyframeRequestsReceived >= 1)  // The ingest asks for one when video starts.
        #expect(signaling.deletes.withLock { $0 }.count == 1)
        #expect(report.resource?.hasPrefix("http://127.0.0.1:1/whip/loop/") == true)
        #expect(ingest.sessionCount == 0)
        await transport.shutdown()
    }

    @Test func refusedOfferEndsWithTheIngestsReason() async throws {
        var configuration = WebRTCTransportConfiguration()
        configuration.port = 0
        let transport = WebRTCTransportService(configuration: configuration, certificate: try DTLSCertificate())
        try await transport.start()
        let hub = StreamHub()
        let live = try hub.publish(key: StreamKey("busy")!, origin: "rtmp")
        let ingest = WHIPIngestService(transport: transport, hub: hub)
        var options = WHIPPublisher.Options(duration: .seconds(1))
        options.signaling = InProcessSignaling(ingest: ingest, hub: hub)
        let publisher = try WHIPPublisher(url: "http://127.0.0.1:1/whip/busy", options: options)
        await #expect {
            let input = try TestPatternSource(
                configuration: .init(width: 160, height: 90, fps: 10, duration: .seconds(1))
            )
            _ = try await publisher.publish(source: input)
        } throws: { error in
            guard case .offerRefused(409, let reason) = error as? WHIPPublishError else { return false }
            return reason.contains("already live")
        }
        live.end()
        await transport.shutdown()
    }
}
