import COpenSSL

/// One-shot digests and HMACs through OpenSSL's EVP interface (the project's crypto dependency).
public enum OpenSSLDigest {
    /// `md`'s digest of `message`.
    public static func digest(_ md: OpaquePointer?, message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = message.withUnsafeBytes { m in EVP_Digest(m.baseAddress, m.count, &out, &length, md, nil) }
        // EVP_Digest fails only on allocation failure or a null digest: both are programming errors here.
        precondition(ok == 1, "EVP_Digest failed")
        return Array(out.prefix(Int(length)))
    }

    /// RFC 2104 HMAC of `message` under `key` with digest `md`.
    public static func hmac(_ md: OpaquePointer?, message: [UInt8], key: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                HMAC(md, k.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(k.count),
                     m.baseAddress?.assumingMemoryBound(to: UInt8.self), m.count, &out, &length)
            }
        }
        precondition(result != nil, "HMAC failed")
        return Array(out.prefix(Int(length)))
    }
}
