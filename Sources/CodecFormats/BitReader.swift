/// ITU-T H.264 §7.2 / §9.1: MSB-first bit reads with exp-Golomb codes over an RBSP.
struct BitReader {
    /// The RBSP bytes (emulation prevention already removed).
    let bytes: [UInt8]
    /// Index of the next unread bit.
    private(set) var bitOffset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Bits left to read.
    var remainingBits: Int { bytes.count * 8 - bitOffset }

    /// One bit, u(1).
    mutating func readBit(_ what: String) throws(CodecFormatError) -> UInt32 {
        guard bitOffset < bytes.count * 8 else { throw .truncated(what: what) }
        let bit = (bytes[bitOffset >> 3] >> (7 - UInt8(bitOffset & 7))) & 1
        bitOffset += 1
        return UInt32(bit)
    }

    /// A flag, u(1) as Bool.
    mutating func readFlag(_ what: String) throws(CodecFormatError) -> Bool { try readBit(what) == 1 }

    /// `count` bits (0…32), u(n).
    mutating func readBits(_ count: Int, _ what: String) throws(CodecFormatError) -> UInt32 {
        guard count <= remainingBits else { throw .truncated(what: what) }
        var value: UInt32 = 0
        for _ in 0..<count { value = value << 1 | (try readBit(what)) }
        return value
    }

    /// Unsigned exp-Golomb, ue(v) (§9.1); rejects codes longer than 32 bits.
    mutating func readUE(_ what: String) throws(CodecFormatError) -> UInt32 {
        var leadingZeros = 0
        while try readBit(what) == 0 {
            leadingZeros += 1
            guard leadingZeros <= 31 else { throw .invalidValue(field: what, value: leadingZeros) }
        }
        let suffix = UInt64(try readBits(leadingZeros, what))
        return UInt32(truncatingIfNeeded: (UInt64(1) << leadingZeros) - 1 + suffix)
    }

    /// Signed exp-Golomb, se(v) (§9.1.1).
    mutating func readSE(_ what: String) throws(CodecFormatError) -> Int32 {
        let k = Int64(try readUE(what))
        let magnitude = (k + 1) / 2
        return Int32(truncatingIfNeeded: k % 2 == 1 ? magnitude : -magnitude)
    }

    /// Removes emulation_prevention_three_byte (§7.4.1): 00 00 03 becomes 00 00.
    static func rbsp<C: Collection>(fromNAL nal: C) -> [UInt8] where C.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(nal.count)
        var zeros = 0
        for byte in nal {
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            out.append(byte)
        }
        return out
    }
}
