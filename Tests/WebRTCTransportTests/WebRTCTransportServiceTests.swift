import NIOCore
import NIOPosix
import TestSupport
import Testing
import WebRTCTransport
import WebRTCWire

/// Two transport services on loopback UDP: our publisher (controlling, DTLS client) into our ingest (ICE-lite).
@Suite("WebRTCTransportService")
struct WebRTCTransportServiceTests {
    static func configuration(consentTimeout: Duration = .seconds(10)) -> WebRTCTransportConfiguration {
        var configuration = WebRTCTransportConfiguration()
        configuration.port = 0
        configuration.hosts = ["127.0.0.1"]
        configuration.consentTimeout = consentTimeout
        return configuration
    }

    @Test func publisherReachesIngestOverLoopbackAndMediaFlowsBothWays() async throws {
        let ingestService = WebRTCTransportService(
            configuration: Self.configuration(),
            certificate: TestCertificates.server
        )
        let publisherService = WebRTCTransportService(
            configuration: Self.configuration(),
            certificate: TestCertificates.client
        )
        let candidates = try await ingestService.start()
        try await publisherService.start()
        #expect(candidates.count == 1 && candidates.first?.port != 0)
        let ingestCredentials = ICECredentials.random()
        let publisherCredentials = ICECredentials.random()
        let ingest = try await ingestService.openSession(
            WebRTCSessionParameters(
                local: ingestCredentials,
                remote: publisherCredentials,
                remoteFingerprint: TestCertificates.client.fingerprint
            )
        )
        let publisher = try await publisherService.openSession(
            WebRTCSessionParameters(
                local: publisherCredentials,
                remote: ingestCredentials,
                remoteFingerprint: TestCertificates.server.fingerprint,
                dtlsRole: .client,
                iceRole: .controlling,
                remoteCandidates: candidates
            )
        )
        var ingestEvents = ingest.events.makeAsyncIterator()
        var publisherEvents = publisher.events.makeAsyncIterator()

        let ingestICE = try await EventWait.until(&ingestEvents) {
            if case .iceConnected(let r) = $0 { r } else { nil }
        }
        #expect(ingestICE.ip == [127, 0, 0, 1])
        _ = try await EventWait.until(&ingestEvents) { if case .connected(let p) = $0 { p } else { nil } }
        _ = try await EventWait.until(&publisherEvents) { if case .connected(let p) = $0 { p } else { nil } }

        for sequence in UInt16(1)...30 { publisher.sendRTP(SRTPContextTests.rtp(sequence: sequence)) }
        var received: [[UInt8]] = []
        while received.count < 30 {
            received.append(try await EventWait.until(&ingestEvents) { if case .rtp(let p, _) = $0 { p } else { nil } })
        }
        #expect(received == (UInt16(1)...30).map { SRTPContextTests.rtp(sequence: $0) })

        ingest.sendRTCP(SRTPContextTests.receiverReport)
        let report = try await EventWait.until(&publisherEvents) { if case .rtcp(let p, _) = $0 { p } else { nil } }
        #expect(report == SRTPContextTests.receiverReport)
        let statistics = try #require(await ingest.statistics())
        #expect(statistics.rtpPacketsReceived == 30 && statistics.srtpRejected == 0)
        #expect(statistics.stunRequestsAnswered >= 1)

        publisher.close()
        let reason = try await EventWait.until(&ingestEvents) { if case .closed(let r) = $0 { r } else { nil } }
        #expect(reason == .closedByPeer)
        #expect(await ingestService.counters().sessions == 0)
        await publisherService.shutdown()
        await ingestService.shutdown()
    }

    @Test func sessionThatNeverHearsFromItsPeerEndsWhenConsentExpires() async throws {
        let service = WebRTCTransportService(
            configuration: Self.configuration(consentTimeout: .milliseconds(300)),
            certificate: TestCertificates.server
        )
        try await service.start()
        let session = try await service.openSession(
            WebRTCSessionParameters(
                local: .random(),
                remote: .random(),
                remoteFingerprint: TestCertificates.client.fingerprint
            )
        )
        var events = session.events.makeAsyncIterator()
        let reason = try await EventWait.until(&events) { if case .closed(let r) = $0 { r } else { nil } }
        #expect(reason == .consentExpired(after: .milliseconds(300)))
        await service.shutdown()
    }

    @Test func datagramsForNoSessionAreCountedAndDropped() async throws {
        let service = WebRTCTransportService(configuration: Self.configuration(), certificate: TestCertificates.server)
        let candidates = try await service.start()
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: Int(try #require(candidates.first).port))
        let sender = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        var random = SeededRandom(seed: 11)
        let strangerCheck = STUNMessage.bindingRequest(
            transactionID: .random(using: &random),
            username: "nobody:here",
            priority: 1,
            controllingTieBreaker: 1,
            useCandidate: true
        ).serialized(integrityKey: Array("whatever-password-123456".utf8), fingerprint: true)
        let datagrams = [strangerCheck, [22, 254, 253, 0, 0], [0x80, 96, 0, 1] + random.bytes(40), [200]]
        for datagram in datagrams {
            try await sender.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: ByteBuffer(bytes: datagram)))
        }
        var unrouted = 0
        for _ in 0..<200 where unrouted < datagrams.count {
            unrouted = await service.counters().unroutedDatagrams
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(unrouted == datagrams.count)
        try await sender.close()
        await service.shutdown()
    }
}

/// Waits for the next event a matcher accepts, failing instead of hanging when the stream ends or stalls.
enum EventWait {
    struct Timeout: Error {}
    struct Ended: Error {}

    static func until<T: Sendable>(
        _ iterator: inout AsyncStream<WebRTCSessionEvent>.Iterator,
        within limit: Duration = .seconds(10),
        _ match: (WebRTCSessionEvent) -> T?
    ) async throws -> T {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            guard let event = await iterator.next() else { throw Ended() }
            if let value = match(event) { return value }
        }
        throw Timeout()
    }
}
