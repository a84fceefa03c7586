/// How a publisher (or, for WHEP, a viewer) reached the gateway; the webhook's `protocol` field.
public enum PublishTransport: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// RTMP over plain TCP.
    case rtmp
    /// RTMP over TLS.
    case rtmps
    /// WebRTC-HTTP ingestion (RFC 9725).
    case whip
    /// Secure Reliable Transport.
    case srt
    /// WebRTC-HTTP egress, for viewers.
    case whep

    public var description: String { rawValue }
}
