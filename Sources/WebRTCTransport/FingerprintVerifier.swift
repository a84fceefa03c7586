import COpenSSL
import WebRTCWire

/// Holds the fingerprint the peer's SDP announced and judges its certificate during the handshake.
///
/// OpenSSL finds it through the SSL's app-data slot; a mismatch aborts the handshake with a `bad_certificate` alert.
final class FingerprintVerifier {
    /// From the remote SDP's `a=fingerprint`.
    let expected: DTLSFingerprint
    /// What the peer's leaf certificate actually hashed to, once seen.
    private(set) var observed: DTLSFingerprint?

    init(expected: DTLSFingerprint) { self.expected = expected }

    /// Whether `certificate` hashes to the expected fingerprint (recording what it hashed to).
    func accepts(_ certificate: OpaquePointer) -> Bool {
        guard let actual = try? DTLSFingerprint(of: certificate, algorithm: expected.algorithm) else { return false }
        observed = actual
        return actual == expected
    }
}

/// OpenSSL verify callback: self-signed is expected in WebRTC, so only the fingerprint decides (RFC 8122 §5).
let dtlsVerifyPeerCertificate: @convention(c) (Int32, OpaquePointer?) -> Int32 = { _, store in
    guard let store,
        let ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
        let slot = SSL_get_ex_data(OpaquePointer(ssl), 0)
    else { return 0 }
    // Only the leaf carries the key the handshake uses; chain members above it are irrelevant here.
    guard X509_STORE_CTX_get_error_depth(store) == 0 else { return 1 }
    let verifier = Unmanaged<FingerprintVerifier>.fromOpaque(slot).takeUnretainedValue()
    guard let certificate = X509_STORE_CTX_get_current_cert(store), verifier.accepts(certificate) else {
        X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_REJECTED)
        return 0
    }
    X509_STORE_CTX_set_error(store, X509_V_OK)
    return 1
}
