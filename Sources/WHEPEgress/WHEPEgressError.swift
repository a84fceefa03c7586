import MediaCore
import WebRTCTransport
import WebRTCWire

/// draft-ietf-wish-whep-03 §4.2: why a WHEP request failed; each case knows its HTTP status and a reason.
public enum WHEPEgressError: Error, Sendable, CustomStringConvertible {
    /// The path's stream key has characters a key may not have (400).
    case invalidStreamKey(String)
    /// Nobody publishes on this key (404).
    case streamNotLive(String)
    /// The stream is live but never described its tracks within the wait (503).
    case streamNotDescribed(StreamKey)
    /// The offer could not be parsed (400), was too large (413) or cannot be served (422).
    case offer(WebRTCWireError)
    /// The gateway carries `whep.max_viewers` viewers already (503 with Retry-After).
    case tooManyViewers(limit: Int, retryAfter: Duration)
    /// The WebRTC UDP port is not running (503).
    case transportUnavailable
    /// The transport refused the session (500).
    case transport(WebRTCTransportError)
    /// No such session (404).
    case sessionNotFound(String)

    /// The HTTP status the draft and RFC 9110 suggest.
    public var httpStatus: Int {
        switch self {
        case .invalidStreamKey: 400
        case .streamNotLive, .sessionNotFound: 404
        case .offer(.sdpTooLarge): 413
        case .offer(.sdpUnacceptable): 422
        case .offer: 400
        case .streamNotDescribed, .tooManyViewers, .transportUnavailable: 503
        case .transport: 500
        }
    }

    /// Seconds for `Retry-After`, when the client should try again later.
    public var retryAfterSeconds: Int? {
        switch self {
        case .tooManyViewers(_, let after): Int(max(1, after.components.seconds))
        case .streamNotDescribed: 1
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .invalidStreamKey(let raw): "invalid stream key '\(raw)'"
        case .streamNotLive(let key): "stream '\(key)' is not live"
        case .streamNotDescribed(let key): "stream '\(key)' has not described its tracks yet"
        case .offer(.sdpUnacceptable(let rejection)): "offer cannot be served: \(rejection)"
        case .offer(.sdpTooLarge(let bytes, let limit)): "offer of \(bytes) bytes exceeds \(limit)"
        case .offer(let error): "unparsable SDP offer: \(error)"
        case .tooManyViewers(let limit, _): "the gateway serves \(limit) WHEP viewers already"
        case .transportUnavailable: "the WebRTC UDP port is not running"
        case .transport(let error): "WebRTC transport: \(error)"
        case .sessionNotFound(let id): "no WHEP session '\(id)'"
        }
    }
}
