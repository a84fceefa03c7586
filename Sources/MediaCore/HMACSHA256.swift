/// RFC 2104 HMAC with FIPS 180-4 SHA-256 (OpenSSL), for signed stream keys and viewer tokens.
public enum HMACSHA256 {
    /// HMAC-SHA256 of `message` under `key` (32 bytes).
    public static func authenticationCode(for message: some Collection<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        MessageDigest.hmac(.sha256, message: Array(message), key: Array(key))
    }

    /// HMAC-SHA256 of the UTF-8 of `message` under the UTF-8 of `secret`, as lowercase hex.
    public static func hex(_ message: String, secret: String) -> String {
        authenticationCode(for: Array(message.utf8), key: Array(secret.utf8)).map {
            hexDigit($0 >> 4) + hexDigit($0 & 0xF)
        }
        .joined()
    }

    /// Compares in time that depends only on the lengths, so a forger learns nothing from timing.
    public static func constantTimeEquals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for (x, y) in zip(a, b) { diff |= x ^ y }
        return diff == 0
    }

    private static func hexDigit(_ v: UInt8) -> String { String(UnicodeScalar(v < 10 ? 48 + v : 87 + v)) }
}

/// FIPS 180-4 §6.2: SHA-256 (OpenSSL).
public enum SHA256 {
    /// The 32-byte digest of `message`.
    public static func hash(_ message: [UInt8]) -> [UInt8] { MessageDigest.hash(.sha256, message) }
}
