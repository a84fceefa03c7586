/// RFC 7983 §7 (with RFC 5761 §4 for RTP vs RTCP): what a datagram on the shared UDP port carries, by its first byte.
public enum PacketClass: Hashable, Sendable {
    /// 0…3: STUN.
    case stun
    /// 16…19: ZRTP (never negotiated by WebRTC; dropped).
    case zrtp
    /// 20…63: DTLS record.
    case dtls
    /// 64…79: TURN ChannelData (we run no TURN server; dropped).
    case turnChannel
    /// 128…191 with a second byte outside 192…223: SRTP.
    case rtp
    /// 128…191 with a second byte in 192…223 (RTCP packet types 192–223, RFC 5761 §4): SRTCP.
    case rtcp
    /// Anything else, including an empty datagram.
    case unknown

    /// Classifies a datagram.
    public init(classifying datagram: some Collection<UInt8>) {
        guard let first = datagram.first else {
            self = .unknown
            return
        }
        switch first {
        case 0...3: self = .stun
        case 16...19: self = .zrtp
        case 20...63: self = .dtls
        case 64...79: self = .turnChannel
        case 128...191:
            let second = datagram.dropFirst().first ?? 0
            self = (192...223).contains(second) ? .rtcp : .rtp
        default: self = .unknown
        }
    }
}
