import CodecFormats
import HTTPClient
import MediaCore
import Testing
import WebRTCTransport
import WebRTCWire

@testable import SluiceBench

/// The bench WHEP viewer without sockets: its offer against our own answerer, its state machine, and its receive
/// path (reorder, STAP-A/FU-A reassembly, capture clock) over packets from our own packetizer.
struct WHEPClientTests {
    static let fingerprint = DTLSFingerprint(algorithm: "sha-256", digest: Array(repeating: 0xAB, count: 32))
    static let endpoint = HTTPLocation(host: "127.0.0.1", port: 8080, target: "/whep/cam")

    static func offer(_ profiles: [String]) -> String {
        WHEPViewerOffer(
            iceUfrag: "ufrag",
            icePwd: "password-password-22",
            fingerprint: fingerprint,
            profiles: profiles,
            sessionID: 7
        ).description.text
    }

    /// The answer our WHEP egress writes for `offer` when the stream can send `sendable`.
    static func answer(_ offer: String, sendable: [String]) throws -> WHEPNegotiation {
        try WHEPNegotiation(
            offer: try WHIPOffer(parsing: offer),
            sendable: WHEPSendable(video: sendable.compactMap { H264ProfileLevelID(hex: $0) }, audio: true),
            configuration: WHEPAnswerConfiguration(
                iceUfrag: "srv",
                icePwd: "server-password-22chars",
                fingerprint: fingerprint,
                candidates: [try #require(TransportAddress("127.0.0.1:8189"))],
                sessionID: 9,
                cname: "c",
                videoSSRC: 0x1111,
                audioSSRC: 0x2222
            )
        )
    }

    @Test(arguments: [
        // Any-profile viewer: the High passthrough, on the first (High) payload type.
        (WHEPViewerOffer.anyProfile, ["640028", "42e01f"], UInt8(102), 0),
        // Constrained-baseline viewer: the passthrough is refused, the baseline rung taken.
        (WHEPViewerOffer.constrainedBaseline, ["640028", "42e01f"], UInt8(102), 1),
        (WHEPViewerOffer.anyProfile, ["42e01f"], UInt8(104), 0),
    ])
    func offerIsAnsweredWithTheRenditionItCanDecode(
        profiles: [String],
        sendable: [String],
        pt: UInt8,
        choice: Int
    )
        throws
    {
        let negotiation = try Self.answer(Self.offer(profiles), sendable: sendable)
        #expect(negotiation.video?.payloadType == pt)
        #expect(negotiation.videoChoice == choice)
        #expect(negotiation.audio?.payloadType == WHEPViewerOffer.audioPayloadType)
        #expect(negotiation.dtlsRole == .server)
    }

    @Test func machinePostsThenOpensTheTransportTheAnswerDescribes() throws {
        let offer = Self.offer(WHEPViewerOffer.anyProfile)
        var m = WHEPClientStateMachine(endpoint: Self.endpoint, offer: offer)
        #expect(m.start() == [.postOffer(offer)])
        let answer = try Self.answer(offer, sendable: ["640028"])
        let response = HTTPClientResponse(
            status: 201,
            headers: ["location": "/whep/cam/s1"],
            body: Array(answer.answerText.utf8)
        )
        let actions = m.received(response, now: .now)
        guard case .openTransport(let plan) = actions.first, actions.count == 1 else {
            Issue.record("expected openTransport, got \(actions)")
            return
        }
        #expect(plan.remote.ufrag == "srv")
        #expect(plan.dtlsRole == .client)
        #expect(plan.videoPayloadType == 102 && plan.audioPayloadType == 111)
        #expect(plan.videoSSRC == 0x1111)
        #expect(plan.candidates.map(\.description) == ["127.0.0.1:8189"])
        #expect(m.resource == HTTPLocation(host: "127.0.0.1", port: 8080, target: "/whep/cam/s1"))
        #expect(m.transportConnected() == [])
        #expect(m.state == .receiving)
        // Stopping DELETEs first, then closes DTLS.
        #expect(m.stop() == [.deleteSession(HTTPLocation(host: "127.0.0.1", port: 8080, target: "/whep/cam/s1"))])
        #expect(m.deleted() == [.closeTransport, .finish(failure: nil)])
        #expect(m.stop() == [])
    }

    @Test func refusedOfferFinishesWithTheStatusAndReason() {
        var m = WHEPClientStateMachine(endpoint: Self.endpoint, offer: "v=0")
        _ = m.start()
        let actions = m.received(HTTPClientResponse(status: 404, body: Array("stream cam is not live".utf8)), now: .now)
        guard case .finish(let failure?) = actions.first else {
            Issue.record("expected a failure, got \(actions)")
            return
        }
        #expect(failure.contains("404") && failure.contains("not live"))
    }

    @Test func connectTimeoutDeletesTheSessionAndFails() throws {
        let offer = Self.offer(WHEPViewerOffer.anyProfile)
        var m = WHEPClientStateMachine(endpoint: Self.endpoint, offer: offer, connectTimeout: .seconds(2))
        _ = m.start()
        let t0 = ContinuousClock.now
        let body = Array(try Self.answer(offer, sendable: ["640028"]).answerText.utf8)
        _ = m.received(HTTPClientResponse(status: 201, headers: ["location": "/whep/cam/s1"], body: body), now: t0)
        #expect(m.tick(now: t0 + .seconds(1)) == [])
        #expect(m.tick(now: t0 + .seconds(2)).count == 1)
        #expect(m.state == .stopping)
        guard case .finish(let failure?) = m.deleted().last else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.contains("did not connect"))
    }

    @Test func keyframeRequestsAreRateLimitedAndOnlyWhileReceiving() throws {
        let offer = Self.offer(WHEPViewerOffer.anyProfile)
        var m = WHEPClientStateMachine(endpoint: Self.endpoint, offer: offer)
        let t0 = ContinuousClock.now
        #expect(m.needsKeyframe(now: t0) == [])
        _ = m.start()
        let body = Array(try Self.answer(offer, sendable: ["640028"]).answerText.utf8)
        _ = m.received(HTTPClientResponse(status: 201, headers: ["location": "/whep/cam/s1"], body: body), now: t0)
        _ = m.transportConnected()
        #expect(m.needsKeyframe(now: t0) == [.sendPLI])
        #expect(m.needsKeyframe(now: t0 + .milliseconds(100)) == [])
        #expect(m.needsKeyframe(now: t0 + .milliseconds(300)) == [.sendPLI])
    }

    @Test func closedTransportDeletesWithoutClosingAgain() throws {
        let offer = Self.offer(WHEPViewerOffer.anyProfile)
        var m = WHEPClientStateMachine(endpoint: Self.endpoint, offer: offer)
        _ = m.start()
        let body = Array(try Self.answer(offer, sendable: ["640028"]).answerText.utf8)
        _ = m.received(HTTPClientResponse(status: 201, headers: ["location": "/whep/cam/s1"], body: body), now: .now)
        _ = m.transportConnected()
        #expect(m.transportClosed("consent expired").count == 1)
        let end = m.deleted()
        #expect(!end.contains(.closeTransport))
        guard case .finish(let failure?) = end.last else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.contains("consent expired"))
    }
}
