import MediaCore

/// FIPS 180-4 §6.1: SHA-1 (OpenSSL), for STUN MESSAGE-INTEGRITY (RFC 8489 §14.5).
public enum SHA1 {
    /// The 20-byte digest of `message`.
    public static func hash(_ message: some Collection<UInt8>) -> [UInt8] {
        MessageDigest.hash(.sha1, Array(message))
    }
}
