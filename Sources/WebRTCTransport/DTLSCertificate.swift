import COpenSSL
import WebRTCWire

/// RFC 8827 §6.5: the self-signed EC P-256 certificate we present in DTLS, made once at start-up.
///
/// Owns the OpenSSL key, certificate and the `SSL_CTX` every `DTLSEndpoint` is created from; immutable after
/// `init`, and OpenSSL's context is safe to share between threads for `SSL_new`.
public final class DTLSCertificate: @unchecked Sendable {
    /// SHA-256 fingerprint for our SDP's `a=fingerprint`.
    public let fingerprint: DTLSFingerprint
    /// How long the certificate stays valid from creation.
    public let validity: Duration
    let key: OpaquePointer
    let certificate: OpaquePointer
    let context: OpaquePointer

    /// The `use_srtp` profiles we offer, best first (RFC 5764 §4.1.2, RFC 7714 §14.2).
    static let srtpProfiles = "SRTP_AEAD_AES_128_GCM:SRTP_AES128_CM_SHA1_80"

    /// Generates a fresh key pair and certificate (common name `sluice`).
    public init(
        validity: Duration = .seconds(30 * 24 * 3600),
        commonName: String = "sluice"
    )
        throws(WebRTCTransportError)
    {
        ERR_clear_error()
        guard let key = sluice_EVP_EC_gen_P256() else {
            throw .openSSL(operation: "EVP_EC_gen(P-256)", reason: OpenSSLErrors.drain())
        }
        guard let certificate = X509_new() else {
            EVP_PKEY_free(key)
            throw .openSSL(operation: "X509_new", reason: OpenSSLErrors.drain())
        }
        do {
            try Self.fill(certificate, key: key, validity: validity, commonName: commonName)
            self.fingerprint = try DTLSFingerprint(of: certificate, algorithm: "sha-256")
            self.context = try Self.makeContext(certificate: certificate, key: key)
        } catch {
            X509_free(certificate)
            EVP_PKEY_free(key)
            throw error
        }
        self.key = key
        self.certificate = certificate
        self.validity = validity
    }

    deinit {
        SSL_CTX_free(context)
        X509_free(certificate)
        EVP_PKEY_free(key)
    }

    /// Version 3, random positive serial, notBefore an hour back (peer clock skew), self-issued, ECDSA-SHA256.
    private static func fill(
        _ x509: OpaquePointer,
        key: OpaquePointer,
        validity: Duration,
        commonName: String
    )
        throws(WebRTCTransportError)
    {
        let serial = Int.random(in: 1...Int(Int32.max))
        let seconds = Int(validity.components.seconds)
        guard X509_set_version(x509, 2) == 1,
            ASN1_INTEGER_set(X509_get_serialNumber(x509), serial) == 1,
            X509_gmtime_adj(X509_getm_notBefore(x509), -3600) != nil,
            X509_gmtime_adj(X509_getm_notAfter(x509), seconds) != nil,
            X509_set_pubkey(x509, key) == 1,
            let name = X509_get_subject_name(x509),
            X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1,
            X509_set_issuer_name(x509, name) == 1,
            X509_sign(x509, key, EVP_sha256()) > 0
        else { throw .openSSL(operation: "build self-signed certificate", reason: OpenSSLErrors.drain()) }
    }

    /// A DTLS 1.2 context with our certificate, `use_srtp`, peer certificates required (checked by fingerprint).
    private static func makeContext(
        certificate: OpaquePointer,
        key: OpaquePointer
    ) throws(WebRTCTransportError)
        -> OpaquePointer
    {
        guard let context = SSL_CTX_new(DTLS_method()) else {
            throw .openSSL(operation: "SSL_CTX_new(DTLS)", reason: OpenSSLErrors.drain())
        }
        // SSL_CTX_set_tlsext_use_srtp returns 0 on success, unlike its neighbours.
        guard sluice_SSL_CTX_set_min_proto_version(context, DTLS1_2_VERSION) == 1,
            SSL_CTX_use_certificate(context, certificate) == 1,
            SSL_CTX_use_PrivateKey(context, key) == 1,
            SSL_CTX_check_private_key(context) == 1,
            SSL_CTX_set_tlsext_use_srtp(context, srtpProfiles) == 0
        else {
            let reason = OpenSSLErrors.drain()
            SSL_CTX_free(context)
            throw .openSSL(operation: "configure DTLS context", reason: reason)
        }
        // No socket behind the BIOs to ask for an MTU; session tickets are useless for one-shot peers.
        SSL_CTX_set_options(context, sluice_SSL_OP_NO_QUERY_MTU() | sluice_SSL_OP_NO_TICKET())
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, dtlsVerifyPeerCertificate)
        return context
    }
}
