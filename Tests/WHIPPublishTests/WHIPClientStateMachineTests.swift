import TestSupport
import Testing
import WebRTCTransport
import WebRTCWire

@testable import WHIPPublish

/// RFC 9725 §4.2–4.4 from the client's side: every transition of the publish, driven without sockets or sleeps.
@Suite struct WHIPClientStateMachineTests {
    static let endpoint = try! WHIPEndpoint("http://127.0.0.1:8080/whip/demo")
    static let offer = WHIPPublisherOffer(
        iceUfrag: "pubU",
        icePwd: "publisherpassword0123456",
        fingerprint: DTLSFingerprint(algorithm: "sha-256", digest: (0..<32).map { UInt8($0) }),
        videoSSRC: 0x1111,
        audioSSRC: 0x2222,
        cname: "c",
        sessionID: 7
    )
    static let serverFingerprint = DTLSFingerprint(algorithm: "sha-256", digest: (0..<32).map { UInt8(255 - $0) })

    /// The answer our own ingest gives this offer, from the real negotiation code.
    static func answer(audio: Bool = true, candidates: [String] = ["127.0.0.1:8189"]) throws -> String {
        var configuration = WHIPAnswerConfiguration(
            iceUfrag: "srvU",
            icePwd: "serverpassword0123456789",
            fingerprint: serverFingerprint,
            candidates: candidates.compactMap(TransportAddress.init),
            sessionID: 1
        )
        configuration.requireAudio = false
        var text = offer.description.text
        if !audio {
            text =
                WHIPPublisherOffer(
                    iceUfrag: "pubU",
                    icePwd: "publisherpassword0123456",
                    fingerprint: offer.fingerprint,
                    videoSSRC: 1,
                    audioSSRC: nil,
                    cname: "c",
                    sessionID: 7
                ).description.text
        }
        return try WHIPNegotiation(offerText: text, configuration: configuration).answerText
    }

    static func created(_ body: String, location: String? = "/whip/demo/s1") -> WHIPHTTPResponse {
        var headers = ["content-type": "application/sdp"]
        headers["location"] = location
        return WHIPHTTPResponse(status: 201, headers: headers, body: body)
    }

    func machine() -> WHIPClientStateMachine {
        WHIPClientStateMachine(endpoint: Self.endpoint, offer: Self.offer.description.text, connectTimeout: .seconds(5))
    }

    @Test func happyPathPostsConnectsPublishesAndDeletesThenCloses() throws {
        var m = machine()
        let t0 = ContinuousClock.now
        #expect(m.start() == [.postOffer(Self.offer.description.text)])
        let actions = m.received(Self.created(try Self.answer()), now: t0)
        guard case .openTransport(let plan) = actions.first, actions.count == 1 else {
            Issue.record("expected openTransport, got \(actions)")
            return
        }
        #expect(plan.remoteUfrag == "srvU" && plan.remotePassword == "serverpassword0123456789")
        #expect(plan.remoteFingerprint == Self.serverFingerprint)
        #expect(plan.dtlsRole == .client)
        #expect(plan.candidates == [TransportAddress("127.0.0.1:8189")!])
        #expect(plan.videoPayloadType == 96 && plan.audioPayloadType == 111)
        #expect(m.resource == "http://127.0.0.1:8080/whip/demo/s1")
        #expect(m.transportConnected() == [.startMedia])
        #expect(m.state == .publishing)
        #expect(m.stop() == [.deleteSession("http://127.0.0.1:8080/whip/demo/s1")])
        #expect(m.stop() == [])
        #expect(m.deleted() == [.closeTransport, .finish(nil)])
        #expect(m.state == .finished(nil))
    }

    /// Status, headers, body → the error the run ends with (no DELETE when no session was created).
    @Test(arguments: [
        (
            WHIPHTTPResponse(status: 409, body: "stream 'demo' is already live\n"),
            WHIPPublishError.offerRefused(status: 409, reason: "stream 'demo' is already live")
        ),
        (WHIPHTTPResponse(status: 401), .offerRefused(status: 401, reason: "")),
        (
            WHIPHTTPResponse(status: 422, body: "unacceptable offer: no H.264"),
            .offerRefused(status: 422, reason: "unacceptable offer: no H.264")
        ),
        (WHIPHTTPResponse(status: 201, headers: [:], body: "v=0"), .missingLocation),
    ])
    func refusedOfferFinishesWithTheServersReason(_ pair: (WHIPHTTPResponse, WHIPPublishError)) {
        var m = machine()
        _ = m.start()
        #expect(m.received(pair.0, now: .now) == [.finish(pair.1)])
        #expect(m.state == .finished(pair.1))
    }

    @Test func unusableAnswerDeletesTheCreatedSession() throws {
        var m = machine()
        _ = m.start()
        let noCandidates = try Self.answer(candidates: [])
        #expect(
            m.received(Self.created(noCandidates), now: .now) == [.deleteSession("http://127.0.0.1:8080/whip/demo/s1")]
        )
        #expect(m.deleted() == [.finish(.badAnswer("no UDP host candidate"))])

        var garbage = machine()
        _ = garbage.start()
        let actions = garbage.received(Self.created("hello"), now: .now)
        #expect(actions == [.deleteSession("http://127.0.0.1:8080/whip/demo/s1")])
        guard case .finish(.badAnswer?) = garbage.deleted().last else {
            Issue.record("expected badAnswer")
            return
        }
    }

    @Test func answerWithoutAudioPublishesVideoOnly() throws {
        var m = machine()
        _ = m.start()
        guard case .openTransport(let plan) = m.received(Self.created(try Self.answer(audio: false)), now: .now).first
        else {
            Issue.record("expected openTransport")
            return
        }
        #expect(plan.audioPayloadType == nil)
    }

    @Test func connectTimeoutDeletesThenClosesTheTransport() throws {
        var m = machine()
        let t0 = ContinuousClock.now
        _ = m.start()
        _ = m.received(Self.created(try Self.answer()), now: t0)
        #expect(m.tick(now: t0.advanced(by: .milliseconds(4_999))) == [])
        #expect(m.tick(now: t0.advanced(by: .seconds(5))) == [.deleteSession("http://127.0.0.1:8080/whip/demo/s1")])
        #expect(m.deleted() == [.closeTransport, .finish(.connectTimeout(.seconds(5)))])
        #expect(m.transportConnected() == [])
    }

    @Test func transportDeathDeletesWithoutClosingAgain() throws {
        var m = machine()
        _ = m.start()
        _ = m.received(Self.created(try Self.answer()), now: .now)
        _ = m.transportConnected()
        let lost = WebRTCTransportError.consentExpired(after: .seconds(10))
        #expect(m.transportClosed(lost) == [.deleteSession("http://127.0.0.1:8080/whip/demo/s1")])
        #expect(m.deleted() == [.finish(.transport(lost))])
        #expect(m.transportClosed(nil) == [])
    }

    @Test func postFailureAndEarlyStopFinishWithoutDelete() {
        var m = machine()
        _ = m.start()
        let failure = WHIPPublishError.http(url: "http://127.0.0.1:8080/whip/demo", reason: "connection refused")
        #expect(m.postFailed(failure) == [.finish(failure)])

        var idle = machine()
        #expect(idle.stop() == [.finish(nil)])
        #expect(idle.start() == [])
    }

    /// Seeded: whatever order inputs arrive in, the machine never DELETEs twice, never opens twice, and ends once.
    @Test func randomInputOrdersNeverRepeatSideEffects() throws {
        let answer = try Self.answer()
        var random = SeededRandom(seed: 42)
        for _ in 0..<300 {
            var m = machine()
            var all: [WHIPClientStateMachine.Action] = m.start()
            let t0 = ContinuousClock.now
            for step in 0..<12 {
                let now = t0.advanced(by: .seconds(step))
                switch Int.random(in: 0..<7, using: &random) {
                case 0: all += m.received(Self.created(answer), now: now)
                case 1: all += m.transportConnected()
                case 2: all += m.transportClosed(.closedByPeer)
                case 3: all += m.tick(now: now)
                case 4: all += m.stop()
                case 5: all += m.deleted()
                default: all += m.postFailed(.http(url: "u", reason: "r"))
                }
            }
            let deletes = all.filter { if case .deleteSession = $0 { true } else { false } }
            let opens = all.filter { if case .openTransport = $0 { true } else { false } }
            let finishes = all.filter { if case .finish = $0 { true } else { false } }
            #expect(deletes.count <= 1 && opens.count <= 1 && finishes.count <= 1)
            if case .finished = m.state { #expect(finishes.count == 1) }
        }
    }
}
