import MediaCore

/// Why a STUN, SDP, RTP or RTCP input was refused; every case says where and what.
public enum WebRTCWireError: Error, Equatable, Sendable {
    /// The input ended inside the structure named by `what`.
    case truncated(what: String, offset: Int, wanted: Int, available: Int)
    /// A STUN header that is not one: top bits set, wrong magic cookie, or a length that disagrees with the datagram.
    case stunBadHeader(reason: String)
    /// A STUN attribute of `type` whose value cannot be read.
    case stunBadAttribute(type: UInt16, reason: String)
    /// The FINGERPRINT attribute holds `found` but the message hashes to `expected`.
    case stunFingerprintMismatch(expected: UInt32, found: UInt32)
    /// An SDP line that breaks RFC 8866 grammar; `line` is 1-based.
    case sdpSyntax(line: Int, text: String, reason: String)
    /// An SDP offer larger than the endpoint accepts.
    case sdpTooLarge(bytes: Int, limit: Int)
    /// A well-formed SDP offer that Sluice cannot answer.
    case sdpUnacceptable(SDPRejection)
    /// An RTP or RTCP header with a version other than 2.
    case rtpBadVersion(UInt8)
    /// An RTP or RTCP field whose value contradicts the packet, named by `field`.
    case rtpBadField(field: String, value: Int)
    /// An H.264 RTP payload this depacketizer does not take (STAP-B, MTAP, FU-B, reserved types).
    case h264UnsupportedPayload(nalType: UInt8)

    /// Maps a `ByteReader` failure to a truncation naming the structure being read.
    static func truncated(_ what: String, _ error: ByteReaderError) -> WebRTCWireError {
        switch error {
        case .truncated(let offset, let wanted, let available):
            .truncated(what: what, offset: offset, wanted: wanted, available: available)
        }
    }
}

/// Why an offer was refused, one case per remedy the publisher can take (RFC 9725 §4.2 leaves the status to us).
public enum SDPRejection: Equatable, Sendable, CustomStringConvertible {
    /// No video section offers H.264 with packetization-mode=1.
    case noH264
    /// No audio section offers Opus at 48 kHz stereo.
    case noOpus
    /// A media section is neither sendonly nor sendrecv (we only receive).
    case notSending(mid: String, direction: String)
    /// No `a=fingerprint` at session or media level (DTLS cannot be authenticated).
    case missingFingerprint
    /// No `a=ice-ufrag`/`a=ice-pwd` (ICE connectivity checks cannot be authenticated).
    case missingICECredentials
    /// No audio or video media section at all.
    case noMedia
    /// WHEP: a media section we would send on is neither recvonly nor sendrecv.
    case notReceiving(mid: String, direction: String)
    /// WHEP: the offer's H.264 (packetization-mode=1) profile-level-ids receive none of the profiles we can send.
    case noSendableH264(offered: [String], sendable: [String])
    /// WHEP: the offer asks for no track the stream has (audio only for a video-only stream, or the reverse).
    case nothingToSend

    public var description: String {
        switch self {
        case .noH264: "no H.264 with packetization-mode=1 offered"
        case .noOpus: "no Opus 48000/2 offered"
        case .notSending(let mid, let direction): "media \(mid) is \(direction), expected sendonly or sendrecv"
        case .missingFingerprint: "missing a=fingerprint"
        case .missingICECredentials: "missing a=ice-ufrag or a=ice-pwd"
        case .noMedia: "no audio or video media section"
        case .notReceiving(let mid, let direction): "media \(mid) is \(direction), expected recvonly or sendrecv"
        case .noSendableH264(let offered, let sendable):
            "the offer receives H.264 \(offered.isEmpty ? "in no profile with packetization-mode=1" : offered.joined(separator: ", ")), the stream can send \(sendable.joined(separator: ", "))"
        case .nothingToSend: "the offer receives no track this stream has"
        }
    }
}
