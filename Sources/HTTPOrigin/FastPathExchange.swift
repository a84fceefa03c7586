import NIOHTTPTypes

/// One connection's (HTTP/1.1) or stream's (HTTP/2) request in progress: who answers it, the fast path or the
/// router, and the requests that arrived behind it, held so responses leave in request order (RFC 9112 §9.3.2).
struct FastPathExchange {
    /// Who answers the request in progress.
    enum Responder: Equatable {
        case fastPath
        case router
    }

    /// What to do with a request part just read.
    enum Action: Equatable {
        /// Pass it to the router.
        case forward
        /// The fast path answers this request: its remaining parts carry nothing it needs.
        case drop
        /// Keep it until the exchange in progress is over.
        case hold
        /// A new request with nothing in progress: choose its responder (`begin`).
        case decide
    }

    private(set) var responder: Responder?
    private var requestEnded = false
    private var responseEnded = false
    /// Parts read while another exchange was in progress, in order.
    private(set) var held: [HTTPRequestPart] = []

    /// Classifies a part read from the peer.
    mutating func read(_ part: HTTPRequestPart) -> Action {
        let isHead: Bool
        if case .head = part { isHead = true } else { isHead = false }
        if !held.isEmpty || (isHead && responder != nil) {
            held.append(part)
            return .hold
        }
        switch part {
        case .head:
            return .decide
        case .body:
            return responder == .fastPath ? .drop : .forward
        case .end:
            requestEnded = true
            return responder == .fastPath ? .drop : .forward
        }
    }

    /// A new request starts, answered by `responder`.
    mutating func begin(_ responder: Responder) {
        self.responder = responder
        requestEnded = false
        responseEnded = false
    }

    /// The response's last part was written.
    mutating func endResponse() { responseEnded = true }

    /// When request and response are both over: the held parts, to read again in order (nil: not over yet).
    mutating func settle() -> [HTTPRequestPart]? {
        guard responder != nil, requestEnded, responseEnded else { return nil }
        responder = nil
        defer { held = [] }
        return held
    }
}
