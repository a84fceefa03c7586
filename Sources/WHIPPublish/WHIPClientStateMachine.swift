import WebRTCTransport
import WebRTCWire

/// RFC 9725 §4.2–4.4 client side: offer → 201 answer → ICE/DTLS → media → DELETE, as a value that returns actions.
///
/// The owner carries out each action (HTTP, transport, media pump) and feeds the outcome back; time is a parameter.
public struct WHIPClientStateMachine: Sendable {
    /// Where the publish is.
    public enum State: Sendable, Equatable {
        case idle
        /// The offer is POSTed; waiting for the answer.
        case offering
        /// The answer is applied; ICE checks and DTLS run.
        case connecting(since: ContinuousClock.Instant)
        /// SRTP keyed: media flows.
        case publishing
        /// DELETE sent; waiting for its answer.
        case stopping
        /// Done (`error` nil after a clean stop).
        case finished(WHIPPublishError?)
    }

    /// What the owner must do next.
    public enum Action: Sendable, Equatable {
        /// POST this SDP offer to the endpoint (`Content-Type: application/sdp`).
        case postOffer(String)
        /// Open the controlling ICE / DTLS session the answer describes.
        case openTransport(TransportPlan)
        /// Start pacing the source out as RTP.
        case startMedia
        /// Close the transport session (DTLS close_notify); the media pump has stopped by then.
        case closeTransport
        /// DELETE the session resource at this absolute URL (RFC 9725 §4.4).
        case deleteSession(String)
        /// The publish ended; report `error` (nil: clean).
        case finish(WHIPPublishError?)
    }

    /// What the answer told us about the transport and the accepted payload types.
    public struct TransportPlan: Sendable, Equatable {
        /// The server's ICE credentials.
        public var remoteUfrag: String
        public var remotePassword: String
        /// The server's DTLS fingerprint.
        public var remoteFingerprint: DTLSFingerprint
        /// Our DTLS role (client unless the server answered `setup:active`).
        public var dtlsRole: DTLSRole
        /// The server's host candidates, in answer order.
        public var candidates: [TransportAddress]
        /// Accepted video payload type.
        public var videoPayloadType: UInt8
        /// Accepted audio payload type, nil when the server rejected audio.
        public var audioPayloadType: UInt8?
    }

    public private(set) var state: State = .idle
    /// The session URL from `Location`, resolved against the endpoint.
    public private(set) var resource: String?
    let endpoint: WHIPEndpoint
    let offer: String
    /// How long ICE + DTLS may take after the answer.
    let connectTimeout: Duration

    /// A machine for one publish of `offer` to `endpoint`.
    public init(endpoint: WHIPEndpoint, offer: String, connectTimeout: Duration = .seconds(10)) {
        self.endpoint = endpoint
        self.offer = offer
        self.connectTimeout = connectTimeout
    }

    /// Starts: POST the offer.
    public mutating func start() -> [Action] {
        guard state == .idle else { return [] }
        state = .offering
        return [.postOffer(offer)]
    }

    /// The POST could not be carried out (connect refused, timeout).
    public mutating func postFailed(_ error: WHIPPublishError) -> [Action] {
        guard state == .offering else { return [] }
        return finish(error)
    }

    /// The endpoint's answer to the offer (RFC 9725 §4.2: 201 Created, Location, application/sdp body).
    public mutating func received(_ response: WHIPHTTPResponse, now: ContinuousClock.Instant) -> [Action] {
        guard state == .offering else { return [] }
        guard response.status == 201 else {
            let reason = response.body.trimmingWhitespace.prefix(300)
            return finish(.offerRefused(status: response.status, reason: String(reason)))
        }
        guard let location = response.headers["location"], !location.isEmpty else { return finish(.missingLocation) }
        resource = endpoint.resolve(location)
        let answer: WHIPRemoteAnswer
        do {
            answer = try WHIPRemoteAnswer(parsing: response.body)
        } catch {
            return finishAfterDelete(.badAnswer("\(error)"))
        }
        guard !answer.candidates.isEmpty else { return finishAfterDelete(.badAnswer("no UDP host candidate")) }
        guard let video = answer.videoPayloadType else { return finishAfterDelete(.badAnswer("video was rejected")) }
        let plan = TransportPlan(
            remoteUfrag: answer.description.iceUfrag,
            remotePassword: answer.description.icePwd,
            remoteFingerprint: answer.description.fingerprint,
            dtlsRole: answer.dtlsRole,
            candidates: answer.candidates,
            videoPayloadType: video,
            audioPayloadType: answer.audioPayloadType
        )
        state = .connecting(since: now)
        return [.openTransport(plan)]
    }

    /// DTLS finished and SRTP is keyed: media may flow.
    public mutating func transportConnected() -> [Action] {
        guard case .connecting = state else { return [] }
        state = .publishing
        return [.startMedia]
    }

    /// The transport ended on its own (consent expired, DTLS failed, peer closed); `error` nil means closed by us.
    public mutating func transportClosed(_ error: WebRTCTransportError?) -> [Action] {
        switch state {
        case .connecting, .publishing:
            return finishAfterDelete(error.map { .transport($0) } ?? .transport(.closedByPeer), closeTransport: false)
        case .idle, .offering, .stopping, .finished:
            return []
        }
    }

    /// Timers: the connect deadline.
    public mutating func tick(now: ContinuousClock.Instant) -> [Action] {
        guard case .connecting(let since) = state, since.duration(to: now) >= connectTimeout else { return [] }
        return finishAfterDelete(.connectTimeout(connectTimeout))
    }

    /// The source ended or the user stopped: close media, then DELETE.
    public mutating func stop() -> [Action] {
        switch state {
        case .idle:
            state = .finished(nil)
            return [.finish(nil)]
        case .offering:
            // The answer may still create a session; it is DELETEd when it arrives.
            state = .finished(nil)
            return [.finish(nil)]
        case .connecting, .publishing:
            return finishAfterDelete(nil)
        case .stopping, .finished:
            return []
        }
    }

    /// The DELETE completed (any status: the session is gone or was never there) or failed to send.
    public mutating func deleted() -> [Action] {
        guard state == .stopping else { return [] }
        let close: [Action] = closeAfterDelete ? [.closeTransport] : []
        return close + finish(pendingError)
    }

    private var pendingError: WHIPPublishError?
    private var closeAfterDelete = false

    /// DELETE first (the server ends the session cleanly), then close the transport if it still runs.
    private mutating func finishAfterDelete(_ error: WHIPPublishError?, closeTransport: Bool = true) -> [Action] {
        var transportOpen = state == .publishing
        if case .connecting = state { transportOpen = true }
        let close = transportOpen && closeTransport
        guard let resource else { return (close ? [.closeTransport] : []) + finish(error) }
        pendingError = error
        closeAfterDelete = close
        state = .stopping
        return [.deleteSession(resource)]
    }

    private mutating func finish(_ error: WHIPPublishError?) -> [Action] {
        state = .finished(error)
        return [.finish(error)]
    }
}

extension String {
    /// The text without leading and trailing whitespace and newlines.
    var trimmingWhitespace: Substring {
        var s = self[...]
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return s
    }
}
