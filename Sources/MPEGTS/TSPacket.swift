/// ISO/IEC 13818-1 §2.4.3.2 (transport packet), §2.4.3.4–5 (adaptation field): one 188-byte packet.
public struct TSPacket: Sendable, Equatable {
    /// Transport packet size.
    public static let size = 188
    /// sync_byte.
    public static let syncByte: UInt8 = 0x47

    /// transport_error_indicator: a demodulator flagged the packet as damaged.
    public var transportError: Bool
    /// payload_unit_start_indicator: a PES packet or a section starts in this payload.
    public var payloadUnitStart: Bool
    /// 13-bit packet identifier.
    public var pid: Int
    /// transport_scrambling_control is not 00.
    public var isScrambled: Bool
    /// continuity_counter (4 bits), incremented per PID for packets carrying a payload (§2.4.3.3).
    public var continuityCounter: UInt8
    /// adaptation_field_control says a payload follows.
    public var hasPayload: Bool
    /// discontinuity_indicator: the continuity counter or the PCR may jump here.
    public var discontinuity: Bool
    /// random_access_indicator: the next PES of this PID starts a random access point.
    public var randomAccess: Bool
    /// program_clock_reference in 27 MHz ticks, when present.
    public var pcr: Int64?
    /// The adaptation field ends in stuffing bytes: §2.4.3.5 stuffs a packet only when the PES data runs out, so
    /// its payload is the end of a PES (false when unknown: private data or an extension make us not guess).
    public var endsWithStuffing: Bool
    /// The bytes after the header and adaptation field.
    public var payload: ArraySlice<UInt8>

    /// Reads one packet; `bytes` must be exactly 188 bytes starting with the sync byte.
    public init(parsing bytes: ArraySlice<UInt8>) throws(MPEGTSError) {
        precondition(bytes.count == Self.size && bytes.first == Self.syncByte, "not a whole transport packet")
        let b = bytes.startIndex
        transportError = bytes[b + 1] & 0x80 != 0
        payloadUnitStart = bytes[b + 1] & 0x40 != 0
        pid = Int(bytes[b + 1] & 0x1F) << 8 | Int(bytes[b + 2])
        isScrambled = bytes[b + 3] & 0xC0 != 0
        continuityCounter = bytes[b + 3] & 0x0F
        let control = (bytes[b + 3] >> 4) & 0x03
        hasPayload = control & 0x01 != 0
        discontinuity = false
        randomAccess = false
        pcr = nil
        endsWithStuffing = false
        var start = b + 4
        if control & 0x02 != 0 {
            let length = Int(bytes[b + 4])
            guard b + 5 + length <= bytes.endIndex else { throw .badAdaptationFieldLength(length) }
            if length > 0 {
                let flags = bytes[b + 5]
                discontinuity = flags & 0x80 != 0
                randomAccess = flags & 0x40 != 0
                if flags & 0x10 != 0, length >= 7 { pcr = Self.programClock(bytes[(b + 6)..<(b + 12)]) }
                // flags, then PCR, OPCR (6 bytes each) and splice_countdown (1) when flagged; the rest is stuffing.
                let used = 1 + (flags & 0x10 != 0 ? 6 : 0) + (flags & 0x08 != 0 ? 6 : 0) + (flags & 0x04 != 0 ? 1 : 0)
                endsWithStuffing = flags & 0x03 == 0 && length > used
            }
            start = b + 5 + length
        }
        payload = hasPayload ? bytes[start...] : bytes[bytes.endIndex...]
    }

    /// §2.4.3.5: program_clock_reference_base (33 bits, 90 kHz) × 300 + extension (9 bits, 27 MHz).
    static func programClock(_ p: ArraySlice<UInt8>) -> Int64 {
        let i = p.startIndex
        let base =
            Int64(p[i]) << 25 | Int64(p[i + 1]) << 17 | Int64(p[i + 2]) << 9 | Int64(p[i + 3]) << 1
            | Int64(p[i + 4] >> 7)
        let ext = Int64(p[i + 4] & 0x01) << 8 | Int64(p[i + 5])
        return base * 300 + ext
    }
}
