import COpenSSL
import WebRTCWire

/// RFC 8122 §5: hashing an OpenSSL certificate into the fingerprint form SDP carries.
extension DTLSFingerprint {
    /// Hashes SDP may name, with OpenSSL's digest name for each.
    static let openSSLDigestNames: [String: String] = [
        "sha-1": "SHA1", "sha-224": "SHA224", "sha-256": "SHA256", "sha-384": "SHA384", "sha-512": "SHA512",
    ]

    /// Digest of a certificate held by OpenSSL (`X509 *`), with the named hash.
    init(of certificate: OpaquePointer, algorithm: String) throws(WebRTCTransportError) {
        guard let name = Self.openSSLDigestNames[algorithm], let hash = EVP_get_digestbyname(name) else {
            throw .unsupportedFingerprintAlgorithm(algorithm)
        }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, hash, &output, &length) == 1 else {
            throw .openSSL(operation: "X509_digest", reason: OpenSSLErrors.drain())
        }
        self.init(algorithm: algorithm, digest: Array(output.prefix(Int(length))))
    }
}
