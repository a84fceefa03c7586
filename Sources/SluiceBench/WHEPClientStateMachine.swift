import HTTPClient
import WebRTCTransport
import WebRTCWire

/// draft-ietf-wish-whep-03 §4.2–4.4, viewer side: offer → 201 answer → ICE/DTLS → media → DELETE, as a value that
/// returns actions. The bench's WHEP viewer carries them out; time is a parameter.
struct WHEPClientStateMachine: Sendable {
    /// Where the viewer is.
    enum State: Sendable, Equatable {
        case idle
        /// The offer is POSTed; waiting for the answer.
        case offering
        /// The answer is applied; ICE checks and DTLS run.
        case connecting(since: ContinuousClock.Instant)
        /// SRTP keyed: media arrives.
        case receiving
        /// DELETE sent; waiting for its answer.
        case stopping
        /// Done; `failure` nil after a clean stop.
        case finished(failure: String?)
    }

    /// What the owner must do next.
    enum Action: Sendable, Equatable {
        /// POST this SDP offer (`Content-Type: application/sdp`).
        case postOffer(String)
        /// Open the controlling ICE / DTLS session the answer describes.
        case openTransport(TransportPlan)
        /// Ask the sender for a keyframe (RTCP PLI on the video SSRC).
        case sendPLI
        /// Close the transport session (DTLS close_notify).
        case closeTransport
        /// DELETE the session resource at this URL (draft §4.4).
        case deleteSession(HTTPLocation)
        /// The viewer is done; `failure` nil when it stopped cleanly.
        case finish(failure: String?)
    }

    /// What the answer told us: the server's ICE credentials, fingerprint, candidates and accepted payload types.
    struct TransportPlan: Sendable, Equatable {
        var remote: ICECredentials
        var remoteFingerprint: DTLSFingerprint
        var dtlsRole: DTLSRole
        var candidates: [TransportAddress]
        /// The H.264 payload type the server chose (which of our offered profiles), nil when it sends no video.
        var videoPayloadType: UInt8?
        /// The video SSRC the answer declared (`a=ssrc`), the target of our PLIs; 0 when it declared none.
        var videoSSRC: UInt32
        /// Opus, nil when it sends no audio.
        var audioPayloadType: UInt8?
    }

    private(set) var state: State = .idle
    /// The session resource from `Location`, resolved against the endpoint.
    private(set) var resource: HTTPLocation?
    let endpoint: HTTPLocation
    let offer: String
    /// How long ICE + DTLS may take after the answer.
    let connectTimeout: Duration
    /// PLIs are sent at most this often while the depacketizer waits for a keyframe.
    let keyframeRequestInterval: Duration
    private var lastPLI: ContinuousClock.Instant?
    private var pendingFailure: String?
    private var closeAfterDelete = false

    /// A machine for one viewer of `endpoint` (`http://host:port/whep/KEY`).
    init(
        endpoint: HTTPLocation,
        offer: String,
        connectTimeout: Duration = .seconds(10),
        keyframeRequestInterval: Duration = .milliseconds(300)
    ) {
        self.endpoint = endpoint
        self.offer = offer
        self.connectTimeout = connectTimeout
        self.keyframeRequestInterval = keyframeRequestInterval
    }

    /// Starts: POST the offer.
    mutating func start() -> [Action] {
        guard state == .idle else { return [] }
        state = .offering
        return [.postOffer(offer)]
    }

    /// The POST could not be carried out (connect refused, timeout).
    mutating func postFailed(_ reason: String) -> [Action] {
        guard state == .offering else { return [] }
        return finish("POST \(endpoint): \(reason)")
    }

    /// The server's answer (draft §4.2: 201 Created, `Location`, an `application/sdp` body).
    mutating func received(_ response: HTTPClientResponse, now: ContinuousClock.Instant) -> [Action] {
        guard state == .offering else { return [] }
        let body = String(decoding: response.body, as: UTF8.self)
        guard response.status == 201 else {
            return finish("POST \(endpoint) answered \(response.status): \(body.prefix(200))")
        }
        guard let location = response.headers["location"], let url = endpoint.resolving(location) else {
            return finish("POST \(endpoint) answered 201 without a usable Location")
        }
        resource = url
        let answer: WHIPRemoteAnswer
        do { answer = try WHIPRemoteAnswer(parsing: body) } catch {
            return finishAfterDelete("unusable answer: \(error)")
        }
        guard !answer.candidates.isEmpty else { return finishAfterDelete("the answer has no UDP host candidate") }
        guard answer.videoPayloadType != nil else { return finishAfterDelete("the answer declined video") }
        state = .connecting(since: now)
        return [
            .openTransport(
                TransportPlan(
                    remote: ICECredentials(ufrag: answer.description.iceUfrag, password: answer.description.icePwd),
                    remoteFingerprint: answer.description.fingerprint,
                    dtlsRole: answer.dtlsRole,
                    candidates: answer.candidates,
                    videoPayloadType: answer.videoPayloadType,
                    videoSSRC: answer.description.sections.first { $0.kind == "video" }?.mediaSSRCs.first ?? 0,
                    audioPayloadType: answer.audioPayloadType
                )
            )
        ]
    }

    /// Opening the transport failed (bind, session refused).
    mutating func transportFailed(_ reason: String) -> [Action] {
        guard case .connecting = state else { return [] }
        return finishAfterDelete(reason, closeTransport: false)
    }

    /// DTLS finished and SRTP is keyed.
    mutating func transportConnected() -> [Action] {
        guard case .connecting = state else { return [] }
        state = .receiving
        return []
    }

    /// The transport ended on its own (consent lost, DTLS failed, peer closed).
    mutating func transportClosed(_ reason: String) -> [Action] {
        switch state {
        case .connecting, .receiving: finishAfterDelete("transport closed: \(reason)", closeTransport: false)
        case .idle, .offering, .stopping, .finished: []
        }
    }

    /// The depacketizer needs a keyframe (first join, loss): one PLI per `keyframeRequestInterval`.
    mutating func needsKeyframe(now: ContinuousClock.Instant) -> [Action] {
        guard state == .receiving else { return [] }
        if let last = lastPLI, last.duration(to: now) < keyframeRequestInterval { return [] }
        lastPLI = now
        return [.sendPLI]
    }

    /// Timers: the connect deadline.
    mutating func tick(now: ContinuousClock.Instant) -> [Action] {
        guard case .connecting(let since) = state, since.duration(to: now) >= connectTimeout else { return [] }
        return finishAfterDelete("ICE/DTLS did not connect within \(connectTimeout)")
    }

    /// The run is over: DELETE the session, then close.
    mutating func stop() -> [Action] {
        switch state {
        case .idle, .offering: finish(nil)
        case .connecting, .receiving: finishAfterDelete(nil)
        case .stopping, .finished: []
        }
    }

    /// The DELETE completed (any status) or could not be sent.
    mutating func deleted() -> [Action] {
        guard state == .stopping else { return [] }
        return (closeAfterDelete ? [.closeTransport] : []) + finish(pendingFailure)
    }

    /// DELETE first (the server ends the session cleanly), then close the transport if it still runs.
    private mutating func finishAfterDelete(_ failure: String?, closeTransport: Bool = true) -> [Action] {
        var open = state == .receiving
        if case .connecting = state { open = true }
        guard let resource else { return (open && closeTransport ? [.closeTransport] : []) + finish(failure) }
        pendingFailure = failure
        closeAfterDelete = open && closeTransport
        state = .stopping
        return [.deleteSession(resource)]
    }

    private mutating func finish(_ failure: String?) -> [Action] {
        state = .finished(failure: failure)
        return [.finish(failure: failure)]
    }
}
