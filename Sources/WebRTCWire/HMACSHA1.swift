/// RFC 2104: HMAC, instantiated with SHA-1 for STUN MESSAGE-INTEGRITY.
public enum HMACSHA1 {
    /// The 20-byte HMAC-SHA1 of `message` under `key`.
    public static func authenticate(_ message: some Collection<UInt8>, key: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? SHA1.hash(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = SHA1.hash(block.map { $0 ^ 0x36 } + Array(message))
        return SHA1.hash(block.map { $0 ^ 0x5C } + inner)
    }
}
