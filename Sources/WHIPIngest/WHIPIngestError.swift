import MediaCore
import StreamHub
import WebRTCTransport
import WebRTCWire

/// RFC 9725 §4.2: why a WHIP request failed; each case knows its HTTP status and a reason for the body.
public enum WHIPIngestError: Error, Sendable, CustomStringConvertible {
    /// The path's stream key has characters a key may not have.
    case invalidStreamKey(String)
    /// The offer could not be parsed (400), was too large (413) or cannot be accepted (422).
    case offer(WebRTCWireError)
    /// Someone already publishes on this key (409).
    case streamLive(StreamKey)
    /// The hub is full (503).
    case tooManyStreams(limit: Int)
    /// The gateway carries `webrtc.max_sessions` WHIP sessions already (503).
    case tooManySessions(limit: Int)
    /// The WebRTC UDP port is not running (503).
    case transportUnavailable
    /// The transport refused the session (500).
    case transport(WebRTCTransportError)
    /// No such session (404).
    case sessionNotFound(String)

    /// The HTTP status RFC 9725 and RFC 9110 suggest.
    public var httpStatus: Int {
        switch self {
        case .invalidStreamKey: 400
        case .offer(.sdpTooLarge): 413
        case .offer(.sdpUnacceptable): 422
        case .offer: 400
        case .streamLive: 409
        case .tooManyStreams, .tooManySessions, .transportUnavailable: 503
        case .transport: 500
        case .sessionNotFound: 404
        }
    }

    public var description: String {
        switch self {
        case .invalidStreamKey(let raw): "invalid stream key '\(raw)'"
        case .offer(.sdpUnacceptable(let rejection)): "unacceptable offer: \(rejection)"
        case .offer(.sdpTooLarge(let bytes, let limit)): "offer of \(bytes) bytes exceeds \(limit)"
        case .offer(let error): "unparsable SDP offer: \(error)"
        case .streamLive(let key): "stream '\(key)' is already live"
        case .tooManyStreams(let limit): "the gateway carries \(limit) streams already"
        case .tooManySessions(let limit): "the gateway carries \(limit) WHIP sessions already"
        case .transportUnavailable: "the WebRTC UDP port is not running"
        case .transport(let error): "WebRTC transport: \(error)"
        case .sessionNotFound(let id): "no WHIP session '\(id)'"
        }
    }

    init(_ error: StreamHubError) {
        switch error {
        case .alreadyPublishing(let key), .backupTaken(let key): self = .streamLive(key)
        case .tooManyStreams(let limit): self = .tooManyStreams(limit: limit)
        }
    }
}
