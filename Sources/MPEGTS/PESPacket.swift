/// ISO/IEC 13818-1 §2.4.3.6–7: a PES packet's header (PTS/DTS) and its payload.
enum PESPacket {
    /// PTS, DTS (the PTS when absent) and payload of a whole PES packet; nil without a start code prefix or PTS.
    static func parse(_ pes: [UInt8]) -> (pts: Int64, dts: Int64, payload: ArraySlice<UInt8>)? {
        guard pes.count >= 9, pes[0] == 0, pes[1] == 0, pes[2] == 1 else { return nil }
        let flags = pes[7] >> 6
        let headerEnd = 9 + Int(pes[8])
        guard flags & 0x02 != 0, pes.count >= headerEnd, headerEnd >= 14 else { return nil }
        let pts = timestamp(pes[9..<14])
        let dts = flags == 0x03 && headerEnd >= 19 ? timestamp(pes[14..<19]) : pts
        // PES_packet_length bounds the payload when set; video usually leaves it 0 (unbounded).
        let declared = Int(pes[4]) << 8 | Int(pes[5])
        let end = declared > 0 ? min(pes.count, 6 + declared) : pes.count
        guard end >= headerEnd else { return nil }
        return (pts, dts, pes[headerEnd..<end])
    }

    /// A 33-bit PTS/DTS in its 5-byte marker-bit layout (§2.4.3.7).
    static func timestamp(_ b: ArraySlice<UInt8>) -> Int64 {
        let i = b.startIndex
        let high = Int64(b[i] >> 1 & 0x07) << 30
        let mid = ((Int64(b[i + 1]) << 8 | Int64(b[i + 2])) >> 1) << 15
        let low = (Int64(b[i + 3]) << 8 | Int64(b[i + 4])) >> 1
        return high | mid | low
    }
}
