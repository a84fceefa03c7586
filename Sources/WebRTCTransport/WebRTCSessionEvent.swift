import MediaCore
import WebRTCWire

/// What a transport session tells its owner (WHIP ingest or publisher), in order.
public enum WebRTCSessionEvent: Sendable {
    /// ICE nominated this remote address; DTLS runs over it.
    case iceConnected(remote: TransportAddress)
    /// DTLS finished, the fingerprint matched, SRTP is keyed with this profile: media may flow.
    case connected(SRTPProfile)
    /// One decrypted RTP packet, with when its datagram arrived.
    case rtp([UInt8], receivedAt: WallTime)
    /// One decrypted RTCP compound packet, with when its datagram arrived.
    case rtcp([UInt8], receivedAt: WallTime)
    /// The session ended: nil when closed by us, else why (consent expired, DTLS failed, peer closed).
    case closed(WebRTCTransportError?)
}

/// Counters for one session, for logs and metrics.
public struct WebRTCSessionStatistics: Sendable, Hashable {
    public var datagramsReceived = 0
    public var bytesReceived = 0
    public var rtpPacketsReceived = 0
    public var rtcpPacketsReceived = 0
    /// SRTP/SRTCP packets dropped because authentication or the replay check failed.
    public var srtpRejected = 0
    public var stunRequestsAnswered = 0
    /// STUN requests refused for a wrong ufrag or MESSAGE-INTEGRITY.
    public var stunRequestsRejected = 0
    public var datagramsSent = 0
    public var bytesSent = 0
    /// Packets the owner asked to send that could not be (not connected yet, or protect failed).
    public var sendsDropped = 0

    public init() {}
}
