/// RFC 3550 §6.4.1 and Appendix A.3/A.8: per-source reception counters (loss, extended highest sequence, interarrival
/// jitter, LSR/DLSR) that fill a receiver report block; the caller passes arrival instants so this stays clock-free.
public struct RTPReceiverStatistics: Sendable {
    /// The source being measured.
    public let ssrc: UInt32
    /// Its RTP clock rate (90 000 video, 48 000 Opus).
    public let clockRate: Int
    private var unwrapper = RTPSequenceUnwrapper()
    private var baseSequence: Int64?
    private var highestSequence: Int64 = 0
    /// Packets received, duplicates included (RFC 3550 A.3 counts them, so loss can go negative).
    public private(set) var received: Int64 = 0
    private var expectedPrior: Int64 = 0
    private var receivedPrior: Int64 = 0
    private var epoch: ContinuousClock.Instant?
    private var lastTransit: Double?
    /// Interarrival jitter estimate in RTP timestamp units (A.8).
    public private(set) var jitter: Double = 0
    private var lastSenderReport: (compact: UInt32, arrival: ContinuousClock.Instant)?

    /// Statistics for `ssrc` at `clockRate` Hz.
    public init(ssrc: UInt32, clockRate: Int) {
        self.ssrc = ssrc
        self.clockRate = clockRate
    }

    /// Packets expected so far from the sequence range seen (A.3).
    public var expected: Int64 { baseSequence.map { highestSequence - $0 + 1 } ?? 0 }

    /// Packets lost so far (expected minus received; negative with duplicates).
    public var cumulativeLost: Int64 { expected - received }

    /// Counts one packet that arrived at `arrival`.
    public mutating func record(sequenceNumber: UInt16, timestamp: UInt32, arrival: ContinuousClock.Instant) {
        let sequence = unwrapper.unwrap(sequenceNumber)
        if baseSequence == nil {
            baseSequence = sequence
            highestSequence = sequence
        }
        highestSequence = max(highestSequence, sequence)
        received += 1
        let start = epoch ?? arrival
        epoch = start
        let elapsed = start.duration(to: arrival)
        let arrivalUnits =
            (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * Double(clockRate)
        let transit = arrivalUnits - Double(timestamp)
        if let lastTransit {
            // A.8: timestamps wrap, so the difference is taken modulo 2^32 as a signed value.
            var d = abs(transit - lastTransit)
            if d > 2_147_483_648 { d = abs(d - 4_294_967_296) }
            jitter += (d - jitter) / 16
        }
        lastTransit = transit
    }

    /// Counts one packet.
    public mutating func record(_ packet: RTPPacket, arrival: ContinuousClock.Instant) {
        record(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, arrival: arrival)
    }

    /// Remembers a sender report for the LSR/DLSR fields.
    public mutating func record(_ report: RTCPSenderReport, arrival: ContinuousClock.Instant) {
        lastSenderReport = (report.compactNTP, arrival)
    }

    /// The report block for now; starts a new interval for `fractionLost`.
    public mutating func makeReportBlock(now: ContinuousClock.Instant) -> RTCPReportBlock {
        let expectedInterval = expected - expectedPrior
        let receivedInterval = received - receivedPrior
        expectedPrior = expected
        receivedPrior = received
        let lostInterval = expectedInterval - receivedInterval
        let fraction =
            expectedInterval <= 0 || lostInterval <= 0 ? 0 : UInt8(min(255, (lostInterval << 8) / expectedInterval))
        let extended = baseSequence == nil ? 0 : UInt32(truncatingIfNeeded: highestSequence - 65_536)
        let dlsr = lastSenderReport.map { RTCPReportBlock.dlsr($0.arrival.duration(to: now)) } ?? 0
        return RTCPReportBlock(
            ssrc: ssrc,
            fractionLost: fraction,
            cumulativeLost: Int32(clamping: cumulativeLost),
            extendedHighestSequence: extended,
            jitter: UInt32(jitter.rounded(.down)),
            lastSenderReport: lastSenderReport?.compact ?? 0,
            delaySinceLastSenderReport: dlsr
        )
    }
}
