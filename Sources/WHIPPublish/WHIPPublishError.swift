import FFmpegBridge
import MediaCore
import WebRTCTransport
import WebRTCWire

/// Why a WHIP publish (RFC 9725 client role) failed; each case names where.
public enum WHIPPublishError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The endpoint URL is not `http://HOST:PORT/whip/KEY`.
    case badEndpoint(String)
    /// TCP connect or the HTTP exchange with the WHIP endpoint failed.
    case http(url: String, reason: String)
    /// The endpoint answered the offer with something other than 201 Created (RFC 9725 §4.2).
    case offerRefused(status: Int, reason: String)
    /// A 201 without a `Location` header (RFC 9725 §4.2 requires one).
    case missingLocation
    /// The answer is not SDP we can use (no ICE credentials, fingerprint, candidates or accepted video).
    case badAnswer(String)
    /// The WebRTC transport failed (bind, DTLS, consent expired, peer closed).
    case transport(WebRTCTransportError)
    /// ICE and DTLS did not finish within the limit.
    case connectTimeout(Duration)
    /// The media source failed or cannot be published over WebRTC.
    case source(String)
    /// A video frame at `dts` is not 4-byte AVCC (no SEI, no packetization).
    case malformedVideo(dts: MediaTime, reason: String)

    public var description: String {
        switch self {
        case .badEndpoint(let url): "WHIP endpoint must look like http://HOST:PORT/whip/KEY, got \(url)"
        case .http(let url, let reason): "HTTP request to \(url) failed: \(reason)"
        case .offerRefused(let status, let reason):
            "the WHIP endpoint refused the offer with HTTP \(status)" + (reason.isEmpty ? "" : ": \(reason)")
        case .missingLocation: "the WHIP endpoint answered 201 without a Location header"
        case .badAnswer(let reason): "unusable SDP answer: \(reason)"
        case .transport(let error): "WebRTC transport: \(error)"
        case .connectTimeout(let limit): "ICE/DTLS did not connect within \(limit)"
        case .source(let reason): "source failed: \(reason)"
        case .malformedVideo(let dts, let reason): "video frame at dts \(dts) is not AVCC: \(reason)"
        }
    }
}
