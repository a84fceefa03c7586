import MediaCore

/// draft-alvestrand-rmcat-remb-03 §2.2: REMB, a PSFB (PT 206, FMT 15) "REMB" application message with the bitrate
/// (bits per second) as a 6-bit exponent and 18-bit mantissa, and the media SSRCs it applies to.
public struct RTCPReceiverEstimatedMaxBitrate: Equatable, Sendable {
    /// Largest mantissa the 18-bit field holds.
    static let mantissaLimit: UInt64 = 1 << 18
    /// The 4-byte unique identifier that marks a REMB among application-layer feedback.
    static let identifier: [UInt8] = Array("REMB".utf8)

    /// Our SSRC.
    public var senderSSRC: UInt32
    /// The bitrate the sender should not exceed, in bits per second (the encoding keeps 18 significant bits).
    public var bitrate: UInt64
    /// The media sources the estimate covers (at most 255).
    public var ssrcs: [UInt32]

    /// A REMB; `bitrate` is rounded down to what the exponent/mantissa field can carry.
    public init(senderSSRC: UInt32, bitrate: UInt64, ssrcs: [UInt32]) {
        self.senderSSRC = senderSSRC
        let (exponent, mantissa) = Self.exponentMantissa(bitrate)
        self.bitrate = mantissa << exponent
        self.ssrcs = Array(ssrcs.prefix(255))
    }

    /// The smallest exponent whose mantissa fits 18 bits: the most precise encoding of `bitrate` (rounded down).
    static func exponentMantissa(_ bitrate: UInt64) -> (exponent: UInt64, mantissa: UInt64) {
        var exponent: UInt64 = 0
        while bitrate >> exponent >= mantissaLimit { exponent += 1 }
        return (exponent, bitrate >> exponent)
    }

    /// Reads the body after the common header; nil when the FCI is not a complete REMB (other PSFB FMT 15 messages).
    init?(reading reader: inout ByteReader) throws(ByteReaderError) {
        guard reader.remaining >= 16 else { return nil }
        senderSSRC = try reader.readUInt32()
        _ = try reader.readUInt32()  // Media source SSRC: always 0 for REMB.
        guard Array(try reader.read(count: 4)) == Self.identifier else { return nil }
        let count = Int(try reader.readUInt8())
        let packed = UInt64(try reader.readUInt24())
        let exponent = packed >> 18
        let mantissa = packed & (Self.mantissaLimit - 1)
        // An exponent past 46 overflows 64 bits with a full mantissa: not a rate any sender can use.
        guard reader.remaining >= 4 * count, mantissa == 0 || exponent <= 46 else { return nil }
        bitrate = mantissa << exponent
        ssrcs = []
        for _ in 0..<count { ssrcs.append(try reader.readUInt32()) }
    }

    func encodedBody() -> [UInt8] {
        var out = ByteWriter(capacity: 16 + 4 * ssrcs.count)
        out.writeUInt32(senderSSRC)
        out.writeUInt32(0)
        out.write(Self.identifier)
        out.writeUInt8(UInt8(ssrcs.count))
        let (exponent, mantissa) = Self.exponentMantissa(bitrate)
        out.writeUInt24(UInt32(exponent << 18 | mantissa))
        for ssrc in ssrcs { out.writeUInt32(ssrc) }
        return out.bytes
    }
}
