internal import COpenSSL

/// One-shot digests and HMACs (OpenSSL's EVP interface underneath, kept out of the API: callers name an algorithm).
public enum MessageDigest {
    /// The hash functions the protocols need.
    public enum Algorithm: Sendable {
        /// FIPS 180-4 SHA-1 (STUN MESSAGE-INTEGRITY).
        case sha1
        /// FIPS 180-4 SHA-256 (signed keys, viewer tokens).
        case sha256

        var evp: OpaquePointer? {
            switch self {
            case .sha1: EVP_sha1()
            case .sha256: EVP_sha256()
            }
        }
    }

    /// `algorithm`'s digest of `message`.
    public static func hash(_ algorithm: Algorithm, _ message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = message.withUnsafeBytes { m in EVP_Digest(m.baseAddress, m.count, &out, &length, algorithm.evp, nil) }
        // EVP_Digest fails only on allocation failure or a null digest: both are programming errors here.
        precondition(ok == 1, "EVP_Digest failed")
        return Array(out.prefix(Int(length)))
    }

    /// RFC 2104 HMAC of `message` under `key` with `algorithm`.
    public static func hmac(_ algorithm: Algorithm, message: [UInt8], key: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                HMAC(
                    algorithm.evp,
                    k.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                    Int32(k.count),
                    m.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    m.count,
                    &out,
                    &length
                )
            }
        }
        precondition(result != nil, "HMAC failed")
        return Array(out.prefix(Int(length)))
    }
}
