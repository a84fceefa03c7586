import MediaCore

/// RFC 3550 §6.4.1: a sender report, which pairs an NTP wall-clock instant with an RTP timestamp.
public struct RTCPSenderReport: Equatable, Sendable {
    /// The sender's SSRC.
    public var ssrc: UInt32
    /// 64-bit NTP timestamp (seconds since 1900 in the high word, fraction in the low word).
    public var ntpTimestamp: UInt64
    /// The RTP timestamp that corresponds to `ntpTimestamp`.
    public var rtpTimestamp: UInt32
    /// Packets sent so far.
    public var packetCount: UInt32
    /// Payload octets sent so far.
    public var octetCount: UInt32
    /// Reception reports (usually empty from a pure publisher).
    public var reports: [RTCPReportBlock]

    /// A report.
    public init(
        ssrc: UInt32,
        ntpTimestamp: UInt64,
        rtpTimestamp: UInt32,
        packetCount: UInt32,
        octetCount: UInt32,
        reports: [RTCPReportBlock] = []
    ) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reports = reports
    }

    /// Seconds between the NTP epoch (1900) and the Unix epoch (1970).
    static let ntpUnixOffset: Int64 = 2_208_988_800

    /// The NTP timestamp as a wall-clock time.
    public var wallTime: WallTime {
        let seconds = Int64(ntpTimestamp >> 32) - Self.ntpUnixOffset
        let nanos = Int64(((ntpTimestamp & 0xFFFF_FFFF) * 1_000_000_000) >> 32)
        return WallTime(nanosecondsSince1970: seconds * 1_000_000_000 + nanos)
    }

    /// A wall-clock time as a 64-bit NTP timestamp.
    public static func ntpTimestamp(_ time: WallTime) -> UInt64 {
        let seconds = time.nanosecondsSince1970.quotientAndRemainder(dividingBy: 1_000_000_000)
        let fraction = (UInt64(seconds.remainder) << 32) / 1_000_000_000
        return UInt64(seconds.quotient + ntpUnixOffset) << 32 | fraction
    }

    /// The wall-clock time of `timestamp` on this sender's RTP clock (RFC 3550 §6.4.1: SRs tie the two clocks together).
    public func wallTime(ofRTPTimestamp timestamp: UInt32, clockRate: Int) -> WallTime {
        // Signed 32-bit difference so timestamps just before the SR (or across a wrap) map correctly.
        let ticks = Int64(Int32(bitPattern: timestamp &- rtpTimestamp))
        return wallTime.advanced(by: .nanoseconds(ticks * 1_000_000_000 / Int64(clockRate)))
    }

    /// The middle 32 bits of `ntpTimestamp`, which a receiver echoes as LSR.
    public var compactNTP: UInt32 { UInt32(truncatingIfNeeded: ntpTimestamp >> 16) }

    init(reading reader: inout ByteReader, reportCount: Int) throws(ByteReaderError) {
        ssrc = try reader.readUInt32()
        ntpTimestamp = try reader.readUInt64()
        rtpTimestamp = try reader.readUInt32()
        packetCount = try reader.readUInt32()
        octetCount = try reader.readUInt32()
        reports = []
        for _ in 0..<reportCount { reports.append(try RTCPReportBlock(reading: &reader)) }
    }

    func encodedBody() -> [UInt8] {
        var out = ByteWriter(capacity: 24 + 24 * reports.count)
        out.writeUInt32(ssrc)
        out.writeUInt64(ntpTimestamp)
        out.writeUInt32(rtpTimestamp)
        out.writeUInt32(packetCount)
        out.writeUInt32(octetCount)
        for block in reports.prefix(31) { block.write(to: &out) }
        return out.bytes
    }
}
