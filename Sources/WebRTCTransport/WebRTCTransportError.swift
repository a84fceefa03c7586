import WebRTCWire

/// Every failure of the WebRTC transport (DTLS, SRTP, ICE, UDP); each case says what and why.
public enum WebRTCTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// OpenSSL refused a setup call (context, certificate, BIO); `reason` is OpenSSL's error string.
    case openSSL(operation: String, reason: String)
    /// The SDP names a hash we do not verify with.
    case unsupportedFingerprintAlgorithm(String)
    /// The peer's certificate does not hash to the fingerprint its SDP announced.
    case fingerprintMismatch(expected: DTLSFingerprint, actual: DTLSFingerprint?)
    /// The DTLS handshake failed; `reason` is OpenSSL's error string or the alert received.
    case handshakeFailed(reason: String)
    /// The handshake finished without a `use_srtp` profile both sides support.
    case noSRTPProfileNegotiated
    /// An operation needs a state the endpoint is not in (for example sending before DTLS connected).
    case invalidState(String)
    /// libsrtp2 failed to initialise or to create a session.
    case srtpSetup(operation: String, status: Int32)
    /// The SRTP/SRTCP authentication tag did not verify (tampered or wrong key).
    case srtpAuthenticationFailed(packet: SRTPPacketKind)
    /// The packet index was already seen or is too old for the replay window.
    case srtpReplay(packet: SRTPPacketKind)
    /// Any other libsrtp2 status for protect/unprotect.
    case srtpFailed(operation: String, status: Int32)
    /// A STUN, DTLS or media packet too short or malformed to use.
    case malformedPacket(String)
    /// The peer ended DTLS with close_notify.
    case closedByPeer
    /// The peer sent nothing (no STUN, no media) for longer than the consent timeout.
    case consentExpired(after: Duration)
    /// The UDP socket could not be bound or written.
    case socket(String)

    public var description: String {
        switch self {
        case .openSSL(let operation, let reason): "OpenSSL \(operation) failed: \(reason)"
        case .unsupportedFingerprintAlgorithm(let name): "unsupported fingerprint hash '\(name)'"
        case .fingerprintMismatch(let expected, let actual):
            "peer certificate fingerprint \(actual.map(String.init(describing:)) ?? "(none)") does not match the SDP's \(expected)"
        case .handshakeFailed(let reason): "DTLS handshake failed: \(reason)"
        case .noSRTPProfileNegotiated: "DTLS finished without a use_srtp profile"
        case .invalidState(let what): "invalid state: \(what)"
        case .srtpSetup(let operation, let status): "libsrtp2 \(operation) failed with status \(status)"
        case .srtpAuthenticationFailed(let kind): "\(kind) authentication failed"
        case .srtpReplay(let kind): "\(kind) replayed or too old"
        case .srtpFailed(let operation, let status): "libsrtp2 \(operation) failed with status \(status)"
        case .malformedPacket(let what): "malformed packet: \(what)"
        case .closedByPeer: "peer closed DTLS"
        case .consentExpired(let after): "no STUN or media from the peer for \(after)"
        case .socket(let what): "UDP socket: \(what)"
        }
    }
}

/// Which of the two SRTP packet families a result is about.
public enum SRTPPacketKind: String, Sendable, Hashable, CustomStringConvertible {
    case rtp = "SRTP"
    case rtcp = "SRTCP"
    public var description: String { rawValue }
}
