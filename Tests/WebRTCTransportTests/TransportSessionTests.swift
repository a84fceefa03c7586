import MediaCore
import NIOCore
import TestSupport
import Testing
import WebRTCWire

@testable import WebRTCTransport

/// The per-session state machine without sockets: ICE-lite answers, nomination, DTLS, SRTP, consent.
@Suite("TransportSession")
struct TransportSessionTests {
    static let ingestCredentials = ICECredentials(ufrag: "ingA", password: "ingest-password-0123456789")
    static let publisherCredentials = ICECredentials(ufrag: "pubB", password: "publisher-password-012345")
    static let ingestAddress = TransportAddress("127.0.0.1:8189")!
    static let publisherAddress = TransportAddress("127.0.0.1:50000")!
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    static func ingest(timing: TransportSession.Timing = .init()) throws -> TransportSession {
        let parameters = WebRTCSessionParameters(
            local: ingestCredentials,
            remote: publisherCredentials,
            remoteFingerprint: TestCertificates.client.fingerprint,
            dtlsRole: .server,
            iceRole: .controlled
        )
        return try TransportSession(
            parameters: parameters,
            certificate: TestCertificates.server,
            timing: timing,
            now: start
        )
    }

    static func publisher() throws -> TransportSession {
        let parameters = WebRTCSessionParameters(
            local: publisherCredentials,
            remote: ingestCredentials,
            remoteFingerprint: TestCertificates.server.fingerprint,
            dtlsRole: .client,
            iceRole: .controlling,
            remoteCandidates: [ingestAddress]
        )
        return try TransportSession(
            parameters: parameters,
            certificate: TestCertificates.client,
            timing: .init(),
            now: start
        )
    }

    /// A check as a controlling peer sends it to the ingest.
    static func check(
        username: String = "ingA:pubB",
        key: String = ingestCredentials.password,
        useCandidate: Bool = true
    ) -> STUNMessage {
        var random = SeededRandom(seed: 3)
        let bytes = STUNMessage.bindingRequest(
            transactionID: .random(using: &random),
            username: username,
            priority: 1,
            controllingTieBreaker: 9,
            useCandidate: useCandidate
        ).serialized(integrityKey: Array(key.utf8), fingerprint: true)
        return try! STUNMessage(parsing: bytes)
    }

    static func sends(_ actions: [TransportSessionAction]) -> [(bytes: [UInt8], to: TransportAddress)] {
        actions.compactMap { if case .send(let bytes, let to) = $0 { (bytes, to) } else { nil } }
    }

    static func events(_ actions: [TransportSessionAction]) -> [WebRTCSessionEvent] {
        actions.compactMap { if case .emit(let event) = $0 { event } else { nil } }
    }

    @Test func authenticatedCheckIsAnsweredWithMappedAddressIntegrityAndFingerprint() throws {
        var session = try Self.ingest()
        let request = Self.check(useCandidate: false)
        let actions = session.receiveSTUN(request, from: Self.publisherAddress, now: Self.start)
        let replies = Self.sends(actions)
        #expect(replies.count == 1 && replies.first?.to == Self.publisherAddress)
        // Parsing verifies FINGERPRINT; integrity is keyed with the ingest's own password (RFC 8445 §7.3.1.1).
        let response = try STUNMessage(parsing: try #require(replies.first).bytes)
        #expect(response.type == .bindingSuccess && response.transactionID == request.transactionID)
        #expect(response.xorMappedAddress == Self.publisherAddress)
        #expect(response.isAuthentic(key: Array(Self.ingestCredentials.password.utf8)))
        #expect(response.attributes.contains { if case .fingerprint = $0 { true } else { false } })
        #expect(actions.contains { if case .learn(Self.publisherAddress) = $0 { true } else { false } })
        #expect(session.phase == .checking && session.selected == nil)
        #expect(session.statistics.stunRequestsAnswered == 1)
    }

    @Test(arguments: [
        ("ingA:pubB", "wrong-password-0123456789"), ("ingA:someoneElse", ingestCredentials.password),
        ("pubB:ingA", ingestCredentials.password),
    ])
    func checksWithTheWrongPasswordOrUfragGet401AndLearnNothing(username: String, key: String) throws {
        var session = try Self.ingest()
        let actions = session.receiveSTUN(
            Self.check(username: username, key: key),
            from: Self.publisherAddress,
            now: Self.start
        )
        let reply = try STUNMessage(parsing: try #require(Self.sends(actions).first).bytes)
        #expect(reply.type == .bindingError && reply.errorCode?.code == 401)
        #expect(!actions.contains { if case .learn = $0 { true } else { false } })
        #expect(session.statistics.stunRequestsRejected == 1)
        // DTLS from an address that never authenticated is ignored.
        #expect(
            session.receiveDTLS(
                [22, 254, 253] + Array(repeating: 0, count: 20),
                from: Self.publisherAddress,
                now: Self.start
            ).isEmpty
        )
    }

    @Test func useCandidateNominatesTheAddressOnce() throws {
        var session = try Self.ingest()
        let first = Self.events(session.receiveSTUN(Self.check(), from: Self.publisherAddress, now: Self.start))
        #expect(session.phase == .securing && session.selected == Self.publisherAddress)
        guard case .iceConnected(let remote) = first.first else {
            Issue.record("expected iceConnected, got \(first)")
            return
        }
        #expect(remote == Self.publisherAddress)
        #expect(Self.events(session.receiveSTUN(Self.check(), from: Self.publisherAddress, now: Self.start)).isEmpty)
    }

    @Test func silenceLongerThanTheConsentTimeoutEndsTheSession() throws {
        var session = try Self.ingest(timing: .init(consentTimeout: .seconds(10)))
        _ = session.receiveSTUN(Self.check(), from: Self.publisherAddress, now: Self.start)
        #expect(session.tick(now: Self.start + .seconds(9)).isEmpty)
        // A consent refresh at 9 s moves the deadline to 19 s.
        _ = session.receiveSTUN(Self.check(), from: Self.publisherAddress, now: Self.start + .seconds(9))
        #expect(session.tick(now: Self.start + .seconds(18)).isEmpty)
        let ended = Self.events(session.tick(now: Self.start + .seconds(20)))
        guard case .closed(.consentExpired(let after)) = ended.last else {
            Issue.record("expected consent expiry, got \(ended)")
            return
        }
        #expect(after == .seconds(10) && session.phase == .closed)
        #expect(session.receiveSTUN(Self.check(), from: Self.publisherAddress, now: Self.start + .seconds(21)).isEmpty)
    }

    @Test func publisherAndIngestConnectThroughICEAndDTLSThenCarrySRTPBothWays() throws {
        var ingest = try Self.ingest()
        var publisher = try Self.publisher()
        var ingestEvents: [WebRTCSessionEvent] = []
        var publisherEvents: [WebRTCSessionEvent] = []
        var toIngest = Self.sends(publisher.start(now: Self.start)).map(\.bytes)
        var toPublisher: [[UInt8]] = []
        var rounds = 0
        while !(toIngest.isEmpty && toPublisher.isEmpty), rounds < 32 {
            rounds += 1
            for datagram in toIngest {
                let actions = Self.deliver(datagram, to: &ingest, from: Self.publisherAddress)
                ingestEvents += Self.events(actions)
                toPublisher += Self.sends(actions).map(\.bytes)
            }
            toIngest = []
            for datagram in toPublisher {
                let actions = Self.deliver(datagram, to: &publisher, from: Self.ingestAddress)
                publisherEvents += Self.events(actions)
                toIngest += Self.sends(actions).map(\.bytes)
            }
            toPublisher = []
        }
        #expect(ingest.phase == .connected && publisher.phase == .connected)
        #expect(ingest.selected == Self.publisherAddress && publisher.selected == Self.ingestAddress)
        #expect(ingestEvents.contains { if case .connected(.aeadAes128Gcm) = $0 { true } else { false } })
        #expect(publisherEvents.contains { if case .connected = $0 { true } else { false } })

        let rtp = SRTPContextTests.rtp(sequence: 500)
        let media = Self.sends(publisher.sendRTP(rtp))
        #expect(media.count == 1 && media.first?.to == Self.ingestAddress)
        let delivered = Self.events(
            Self.deliver(try #require(media.first).bytes, to: &ingest, from: Self.publisherAddress)
        )
        guard case .rtp(let packet, _) = delivered.first else {
            Issue.record("expected RTP, got \(delivered)")
            return
        }
        #expect(packet == rtp)
        let feedback = Self.sends(ingest.sendRTCP(SRTPContextTests.receiverReport))
        let back = Self.events(
            Self.deliver(try #require(feedback.first).bytes, to: &publisher, from: Self.ingestAddress)
        )
        guard case .rtcp(let report, _) = back.first else {
            Issue.record("expected RTCP, got \(back)")
            return
        }
        #expect(report == SRTPContextTests.receiverReport)
        // A forged media packet is dropped and counted, the session lives on.
        var forged = try #require(media.first).bytes
        forged[forged.count - 1] ^= 1
        #expect(Self.events(Self.deliver(forged, to: &ingest, from: Self.publisherAddress)).isEmpty)
        #expect(ingest.statistics.srtpRejected == 1 && ingest.phase == .connected)

        let closing = publisher.close(reason: nil)
        var last: [WebRTCSessionEvent] = []
        for (bytes, _) in Self.sends(closing) {
            last += Self.events(Self.deliver(bytes, to: &ingest, from: Self.publisherAddress))
        }
        guard case .closed(.closedByPeer) = last.last else {
            Issue.record("expected closedByPeer, got \(last)")
            return
        }
    }

    @Test func mediaBeforeDTLSConnectedIsIgnoredAndSendsAreCountedAsDropped() throws {
        var session = try Self.ingest()
        _ = session.receiveSTUN(Self.check(), from: Self.publisherAddress, now: Self.start)
        let rtp = SRTPContextTests.rtp(sequence: 1)
        #expect(
            session.receiveMedia(rtp, kind: .rtp, from: Self.publisherAddress, now: Self.start, arrival: .now()).isEmpty
        )
        #expect(session.sendRTCP(SRTPContextTests.receiverReport).isEmpty)
        #expect(session.statistics.sendsDropped == 1)
    }

    /// Routes a datagram by its first byte as the router does (RFC 7983).
    static func deliver(
        _ datagram: [UInt8],
        to session: inout TransportSession,
        from source: TransportAddress
    )
        -> [TransportSessionAction]
    {
        switch PacketClass(classifying: datagram) {
        case .stun: session.receiveSTUN(try! STUNMessage(parsing: datagram), from: source, now: start)
        case .dtls: session.receiveDTLS(datagram, from: source, now: start)
        case .rtp: session.receiveMedia(datagram, kind: .rtp, from: source, now: start, arrival: .now())
        case .rtcp: session.receiveMedia(datagram, kind: .rtcp, from: source, now: start, arrival: .now())
        default: []
        }
    }
}
