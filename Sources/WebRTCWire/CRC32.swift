/// RFC 8489 §14.7: the CRC-32 of ITU-T V.42 / ISO-HDLC (reflected polynomial 0xEDB88320) under STUN's FINGERPRINT.
public enum CRC32 {
    /// One entry per byte value, built once.
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// The checksum of `bytes` (check value of "123456789" is 0xCBF43926).
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
