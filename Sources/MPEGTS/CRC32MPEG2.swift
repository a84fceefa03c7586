/// ISO/IEC 13818-1 Annex A: the CRC_32 of PSI sections (polynomial 0x04C11DB7, MSB first, initial 0xFFFFFFFF).
enum CRC32MPEG2 {
    private static let table: [UInt32] = (0..<256).map { i in
        var c = UInt32(i) << 24
        for _ in 0..<8 { c = c & 0x8000_0000 != 0 ? (c << 1) ^ 0x04C1_1DB7 : c << 1 }
        return c
    }

    /// The checksum of `bytes`.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes { crc = (crc << 8) ^ table[Int((crc >> 24) ^ UInt32(b))] }
        return crc
    }
}
