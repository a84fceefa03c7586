import COpenSSL
import WebRTCWire

/// Where a `DTLSEndpoint` is in its life.
public enum DTLSState: Sendable, Hashable {
    case idle
    case handshaking
    case connected
    case failed
    case closed
}

/// What the owner of a `DTLSEndpoint` must do after feeding it.
public enum DTLSAction: Sendable, Hashable {
    /// Send this datagram to the peer (over the nominated ICE pair).
    case send([UInt8])
    /// The handshake finished, the peer's fingerprint matched, and SRTP keys are ready.
    case connected(SRTPKeyingMaterial)
    /// The handshake or the connection failed; the endpoint is finished.
    case failed(WebRTCTransportError)
    /// The peer closed DTLS (close_notify).
    case closed
}

/// RFC 6347 DTLS 1.2 with RFC 5764 `use_srtp`, driven without a socket: datagrams in, actions out.
///
/// OpenSSL reads from and writes to memory BIOs; the owner feeds received datagrams, sends what comes back, and
/// calls `handleTimeout()` when `timeout()` says a retransmission is due. Not thread-safe: confine it to one
/// event loop or actor.
public struct DTLSEndpoint: ~Copyable {
    public let role: DTLSRole
    public private(set) var state: DTLSState = .idle
    /// Set once `connected` was returned.
    public private(set) var keyingMaterial: SRTPKeyingMaterial?
    /// Largest datagram we hand out (RFC 8261 leaves ~1200 bytes safe on any path).
    public let mtu: Int
    private let ssl: OpaquePointer
    private let incoming: OpaquePointer
    private let outgoing: OpaquePointer
    private let verifier: FingerprintVerifier

    /// - Parameter remoteFingerprint: the peer's SDP `a=fingerprint`; the handshake fails unless its certificate
    ///   hashes to it.
    public init(
        role: DTLSRole,
        certificate: DTLSCertificate,
        remoteFingerprint: DTLSFingerprint,
        mtu: Int = 1200
    ) throws(WebRTCTransportError) {
        guard DTLSFingerprint.openSSLDigestNames[remoteFingerprint.algorithm] != nil else {
            throw .unsupportedFingerprintAlgorithm(remoteFingerprint.algorithm)
        }
        ERR_clear_error()
        guard let ssl = SSL_new(certificate.context) else {
            throw .openSSL(operation: "SSL_new", reason: OpenSSLErrors.drain())
        }
        guard let incoming = BIO_new(BIO_s_mem()), let outgoing = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .openSSL(operation: "BIO_new", reason: OpenSSLErrors.drain())
        }
        // An empty memory BIO means "no datagram yet", not end of stream.
        _ = sluice_BIO_set_mem_eof_return(incoming, -1)
        _ = sluice_BIO_set_mem_eof_return(outgoing, -1)
        SSL_set_bio(ssl, incoming, outgoing)
        _ = sluice_SSL_set_mtu(ssl, mtu - 28)  // IPv4 + UDP headers come off the path MTU.
        self.verifier = FingerprintVerifier(expected: remoteFingerprint)
        SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(verifier).toOpaque())
        switch role {
        case .server: SSL_set_accept_state(ssl)
        case .client: SSL_set_connect_state(ssl)
        }
        self.role = role
        self.mtu = mtu
        self.ssl = ssl
        self.incoming = incoming
        self.outgoing = outgoing
    }

    deinit { SSL_free(ssl) }

    /// Begins the handshake: a client returns its ClientHello; a server returns nothing and waits.
    public mutating func start() -> [DTLSAction] {
        guard state == .idle else { return [] }
        state = .handshaking
        return step()
    }

    /// Feeds one received datagram (first byte 20...63, RFC 7983). Garbage and forged records are dropped.
    public mutating func receive(_ datagram: [UInt8]) -> [DTLSAction] {
        switch state {
        case .idle: state = .handshaking
        case .handshaking, .connected: break
        case .failed, .closed: return []
        }
        guard !datagram.isEmpty else { return [] }
        let written = datagram.withUnsafeBytes { BIO_write(incoming, $0.baseAddress, Int32($0.count)) }
        guard written == datagram.count else { return fail(.openSSL(operation: "BIO_write", reason: "short write")) }
        return step()
    }

    /// Time left until `handleTimeout()` should run, while the handshake waits on the peer; nil when no timer runs.
    public func timeout() -> Duration? {
        guard state == .handshaking else { return nil }
        var remaining = timeval()
        guard sluice_DTLSv1_get_timeout(ssl, &remaining) == 1 else { return nil }
        return .seconds(Int64(remaining.tv_sec)) + .microseconds(Int64(remaining.tv_usec))
    }

    /// Retransmits the last flight when its timer expired (RFC 6347 §4.2.4); fails after OpenSSL gives up.
    public mutating func handleTimeout() -> [DTLSAction] {
        guard state == .handshaking else { return [] }
        ERR_clear_error()
        if sluice_DTLSv1_handle_timeout(ssl) < 0 {
            return fail(.handshakeFailed(reason: OpenSSLErrors.drain(fallback: "peer did not answer retransmissions")))
        }
        return flush()
    }

    /// Sends close_notify when connected; the endpoint ignores everything afterwards.
    public mutating func close() -> [DTLSAction] {
        guard state == .connected || state == .handshaking else { return [] }
        let wasConnected = state == .connected
        state = .closed
        guard wasConnected else { return [] }
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        return flush()
    }

    /// Runs OpenSSL on whatever input is buffered and collects the resulting actions.
    private mutating func step() -> [DTLSAction] {
        ERR_clear_error()
        switch state {
        case .handshaking: return handshake()
        case .connected: return readApplicationData()
        case .idle, .failed, .closed: return []
        }
    }

    private mutating func handshake() -> [DTLSAction] {
        let result = SSL_do_handshake(ssl)
        if result == 1 { return finishHandshake() }
        let error = SSL_get_error(ssl, result)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return flush() }
        if verifier.observed != nil, verifier.observed != verifier.expected {
            return fail(.fingerprintMismatch(expected: verifier.expected, actual: verifier.observed))
        }
        return fail(.handshakeFailed(reason: OpenSSLErrors.drain(fallback: "SSL_get_error \(error)")))
    }

    /// Double-checks the peer certificate, reads the negotiated profile and exports the SRTP keys.
    private mutating func finishHandshake() -> [DTLSAction] {
        guard let peer = SSL_get0_peer_certificate(ssl) else {
            return fail(.handshakeFailed(reason: "peer sent no certificate"))
        }
        guard verifier.accepts(peer) else {
            return fail(.fingerprintMismatch(expected: verifier.expected, actual: verifier.observed))
        }
        guard let selected = SSL_get_selected_srtp_profile(ssl),
            let profile = SRTPProfile(rawValue: UInt16(truncatingIfNeeded: selected.pointee.id))
        else { return fail(.noSRTPProfileNegotiated) }
        var exported = [UInt8](repeating: 0, count: SRTPKeyingMaterial.exportLength(for: profile))
        let label = SRTPKeyingMaterial.exporterLabel
        let status = SSL_export_keying_material(ssl, &exported, exported.count, label, label.utf8.count, nil, 0, 0)
        guard status == 1 else {
            return fail(.openSSL(operation: "SSL_export_keying_material", reason: OpenSSLErrors.drain()))
        }
        let material = SRTPKeyingMaterial(profile: profile, exported: exported, localRole: role)
        state = .connected
        keyingMaterial = material
        return flush() + [.connected(material)] + readApplicationData()
    }

    /// Drains records after the handshake: retransmitted Finished, alerts, close_notify (no data channel here).
    private mutating func readApplicationData() -> [DTLSAction] {
        var buffer = [UInt8](repeating: 0, count: 2048)
        while true {
            let count = SSL_read(ssl, &buffer, Int32(buffer.count))
            if count > 0 { continue }
            let error = SSL_get_error(ssl, count)
            if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return flush() }
            if error == SSL_ERROR_ZERO_RETURN {
                state = .closed
                return flush() + [.closed]
            }
            return fail(.handshakeFailed(reason: OpenSSLErrors.drain(fallback: "SSL_read error \(error)")))
        }
    }

    private mutating func fail(_ error: WebRTCTransportError) -> [DTLSAction] {
        state = .failed
        return flush() + [.failed(error)]
    }

    /// Takes everything OpenSSL wrote and packs its records into datagrams of at most `mtu` bytes.
    private func flush() -> [DTLSAction] {
        let pending = Int(BIO_ctrl_pending(outgoing))
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = BIO_read(outgoing, &bytes, Int32(pending))
        guard read > 0 else { return [] }
        return DTLSRecords.pack(Array(bytes.prefix(Int(read))), mtu: mtu).map { .send($0) }
    }
}
