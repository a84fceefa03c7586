import MediaCore

/// RFC 3550 §6.4.1: one reception report block, shared by SR and RR.
public struct RTCPReportBlock: Equatable, Sendable {
    /// The source this block reports on.
    public var ssrc: UInt32
    /// Fraction lost since the last report, in 1/256 units.
    public var fractionLost: UInt8
    /// Cumulative packets lost (24-bit signed on the wire: duplicates can make it negative).
    public var cumulativeLost: Int32
    /// Extended highest sequence number received (cycles << 16 | sequence).
    public var extendedHighestSequence: UInt32
    /// Interarrival jitter in RTP timestamp units.
    public var jitter: UInt32
    /// Middle 32 bits of the NTP timestamp of the last SR received (0 if none).
    public var lastSenderReport: UInt32
    /// Delay since that SR in 1/65536 s (0 if none).
    public var delaySinceLastSenderReport: UInt32

    /// A block.
    public init(
        ssrc: UInt32,
        fractionLost: UInt8,
        cumulativeLost: Int32,
        extendedHighestSequence: UInt32,
        jitter: UInt32,
        lastSenderReport: UInt32,
        delaySinceLastSenderReport: UInt32
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequence = extendedHighestSequence
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    /// The DLSR field as a duration.
    public var delaySinceLastSenderReportDuration: Duration {
        .nanoseconds(Int64(delaySinceLastSenderReport) * 1_000_000_000 / 65_536)
    }

    /// Converts a duration to the DLSR field (clamped to the 32-bit range).
    public static func dlsr(_ duration: Duration) -> UInt32 {
        let (seconds, attoseconds) = duration.components
        // 10^18 / 65536 = 15_258_789_062_500 attoseconds per unit, exactly.
        let units = min(max(0, seconds), 65_536) * 65_536 + max(0, attoseconds) / 15_258_789_062_500
        return UInt32(clamping: units)
    }

    init(reading reader: inout ByteReader) throws(ByteReaderError) {
        ssrc = try reader.readUInt32()
        fractionLost = try reader.readUInt8()
        let lost = try reader.readUInt24()
        cumulativeLost = lost & 0x80_0000 != 0 ? Int32(lost) - 0x100_0000 : Int32(lost)
        extendedHighestSequence = try reader.readUInt32()
        jitter = try reader.readUInt32()
        lastSenderReport = try reader.readUInt32()
        delaySinceLastSenderReport = try reader.readUInt32()
    }

    func write(to out: inout ByteWriter) {
        out.writeUInt32(ssrc)
        out.writeUInt8(fractionLost)
        let clamped = min(max(cumulativeLost, -0x80_0000), 0x7F_FFFF)
        out.writeUInt24(UInt32(bitPattern: clamped) & 0xFF_FFFF)
        out.writeUInt32(extendedHighestSequence)
        out.writeUInt32(jitter)
        out.writeUInt32(lastSenderReport)
        out.writeUInt32(delaySinceLastSenderReport)
    }
}

/// RFC 3550 §6.4.2: a receiver report (what Sluice sends back to a publisher).
public struct RTCPReceiverReport: Equatable, Sendable {
    /// Our SSRC as the reporter.
    public var ssrc: UInt32
    /// Up to 31 blocks.
    public var reports: [RTCPReportBlock]

    /// A report.
    public init(ssrc: UInt32, reports: [RTCPReportBlock]) {
        self.ssrc = ssrc
        self.reports = reports
    }

    init(reading reader: inout ByteReader, reportCount: Int) throws(ByteReaderError) {
        ssrc = try reader.readUInt32()
        reports = []
        for _ in 0..<reportCount { reports.append(try RTCPReportBlock(reading: &reader)) }
    }

    func encodedBody() -> [UInt8] {
        var out = ByteWriter(capacity: 4 + 24 * reports.count)
        out.writeUInt32(ssrc)
        for block in reports.prefix(31) { block.write(to: &out) }
        return out.bytes
    }
}
