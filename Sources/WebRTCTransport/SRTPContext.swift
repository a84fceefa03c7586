import CSRTP

/// libsrtp2 wants `srtp_init` once per process; a global's initializer runs exactly once, thread-safely.
private let srtpLibraryStatus: UInt32 = srtp_init().rawValue

/// Which way packets flow through an `SRTPContext`.
public enum SRTPDirection: Sendable, Hashable {
    /// Packets from the peer: unprotect.
    case inbound
    /// Packets we send: protect.
    case outbound
}

/// RFC 3711 SRTP/SRTCP for one direction of one session, backed by libsrtp2 (any SSRC).
///
/// Holds libsrtp's per-SSRC replay and rollover state, so it is not thread-safe: confine it to one event loop.
public final class SRTPContext {
    public let profile: SRTPProfile
    public let direction: SRTPDirection
    private let session: srtp_t

    /// Room libsrtp may write past an RTP packet when protecting (tag + MKI), plus the SRTCP index.
    private static let trailerRoom = Int(sluice_srtp_max_trailer_len()) + 4

    /// - Parameter replayWindow: packets the replay check remembers (RFC 3711 §3.3.2; WebRTC reorders, so
    ///   libsrtp's default of 128 is small for video bursts).
    public init(
        profile: SRTPProfile,
        key: SRTPKey,
        direction: SRTPDirection,
        replayWindow: Int = 1024
    )
        throws(WebRTCTransportError)
    {
        guard srtpLibraryStatus == srtp_err_status_ok.rawValue else {
            throw .srtpSetup(operation: "srtp_init", status: Int32(srtpLibraryStatus))
        }
        guard key.key.count == profile.keyLength, key.salt.count == profile.saltLength else {
            throw .srtpSetup(operation: "key \(key.key.count)+\(key.salt.count) bytes for \(profile)", status: -1)
        }
        var policy = srtp_policy_t()
        switch profile {
        case .aes128CmHmacSha1_80:
            // libsrtp2's defaults are AES_CM_128_HMAC_SHA1_80 for both SRTP and SRTCP.
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        case .aeadAes128Gcm:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        }
        policy.ssrc.type = direction == .inbound ? ssrc_any_inbound : ssrc_any_outbound
        policy.window_size = UInt(replayWindow)
        // Answering NACKs resends a packet with the same sequence number and payload, which RFC 4588 §5 permits.
        policy.allow_repeat_tx = direction == .outbound ? 1 : 0
        var master = key.key + key.salt
        var created: srtp_t?
        let status = master.withUnsafeMutableBufferPointer { buffer in
            policy.key = buffer.baseAddress
            return srtp_create(&created, &policy)
        }
        // libsrtp copied the key into its own state; do not leave a copy in our heap.
        for index in master.indices { master[index] = 0 }
        guard status == srtp_err_status_ok, let created else {
            throw .srtpSetup(operation: "srtp_create", status: Int32(status.rawValue))
        }
        self.session = created
        self.profile = profile
        self.direction = direction
    }

    /// A context for one direction of a DTLS-SRTP session: inbound uses the peer's half, outbound ours.
    public convenience init(material: SRTPKeyingMaterial, direction: SRTPDirection) throws(WebRTCTransportError) {
        let key = direction == .inbound ? material.remote : material.local
        try self.init(profile: material.profile, key: key, direction: direction)
    }

    deinit { srtp_dealloc(session) }

    /// Encrypts and authenticates an RTP packet.
    public func protectRTP(_ packet: [UInt8]) throws(WebRTCTransportError) -> [UInt8] {
        try run(packet, kind: .rtp, grow: true) { srtp_protect(session, $0, $1) }
    }

    /// Encrypts and authenticates an RTCP compound packet (adds the SRTCP index and tag).
    public func protectRTCP(_ packet: [UInt8]) throws(WebRTCTransportError) -> [UInt8] {
        try run(packet, kind: .rtcp, grow: true) { srtp_protect_rtcp(session, $0, $1) }
    }

    /// Verifies and decrypts an SRTP packet; throws on a bad tag or a replay.
    public func unprotectRTP(_ packet: [UInt8]) throws(WebRTCTransportError) -> [UInt8] {
        try run(packet, kind: .rtp, grow: false) { srtp_unprotect(session, $0, $1) }
    }

    /// Verifies and decrypts an SRTCP packet; throws on a bad tag or a replay.
    public func unprotectRTCP(_ packet: [UInt8]) throws(WebRTCTransportError) -> [UInt8] {
        try run(packet, kind: .rtcp, grow: false) { srtp_unprotect_rtcp(session, $0, $1) }
    }

    /// Runs a libsrtp call in place on a copy of `packet` and maps its status.
    private func run(
        _ packet: [UInt8],
        kind: SRTPPacketKind,
        grow: Bool,
        _ call: (UnsafeMutableRawPointer, UnsafeMutablePointer<Int32>) -> srtp_err_status_t
    ) throws(WebRTCTransportError) -> [UInt8] {
        guard packet.count >= (kind == .rtp ? 12 : 8) else {
            throw .malformedPacket("\(kind) packet of \(packet.count) bytes")
        }
        var buffer = packet
        if grow { buffer.append(contentsOf: repeatElement(0, count: Self.trailerRoom)) }
        var length = Int32(packet.count)
        let status = buffer.withUnsafeMutableBytes { call($0.baseAddress!, &length) }
        switch status {
        case srtp_err_status_ok:
            buffer.removeLast(buffer.count - Int(length))
            return buffer
        case srtp_err_status_auth_fail: throw .srtpAuthenticationFailed(packet: kind)
        case srtp_err_status_replay_fail, srtp_err_status_replay_old: throw .srtpReplay(packet: kind)
        default:
            let operation = "\(direction == .inbound ? "unprotect" : "protect") \(kind)"
            throw .srtpFailed(operation: operation, status: Int32(status.rawValue))
        }
    }
}
