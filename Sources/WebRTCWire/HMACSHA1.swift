import MediaCore

/// RFC 2104: HMAC, instantiated with SHA-1 for STUN MESSAGE-INTEGRITY (OpenSSL).
public enum HMACSHA1 {
    /// The 20-byte HMAC-SHA1 of `message` under `key`.
    public static func authenticate(_ message: some Collection<UInt8>, key: [UInt8]) -> [UInt8] {
        MessageDigest.hmac(.sha1, message: Array(message), key: key)
    }
}
