/// One SRT connection's link statistics as libsrt reports them (`srt_bstats`, SRT_TRACEBSTATS), receiver side.
///
/// Counts are totals since the connection started; the telemetry turns successive reports into counter increments.
public struct SRTLinkStats: Sendable, Equatable {
    /// Smoothed round-trip time.
    public var roundTrip: Duration = .zero
    /// The receive latency window (TSBPD delay) negotiated with the caller.
    public var latency: Duration = .zero
    /// Receiving rate, bits per second.
    public var receiveBitsPerSecond: Double = 0
    /// Data packets received, retransmissions included (pktRecvTotal).
    public var packetsReceived: Int64 = 0
    /// Packets detected missing by the receiver, each loss counted once (pktRcvLossTotal).
    public var packetsLost: Int64 = 0
    /// Retransmitted packets received (pktRcvRetrans, never cleared): the repairs of those losses.
    public var packetsRetransmitted: Int64 = 0
    /// Packets that never arrived within the latency window and were skipped (pktRcvDropTotal): media lost.
    public var packetsDropped: Int64 = 0

    /// Zero statistics.
    public init() {}
}

/// A stream's SRT ingest as `/api/streams` shows it (`srt`): the session count and the latest libsrt figures.
public struct SRTStreamTelemetry: Sendable, Hashable, Codable {
    /// SRT sessions publishing this stream now.
    public var sessions = 0
    /// Smoothed round-trip time, milliseconds.
    public var rttMs = 0.0
    /// Negotiated receive latency window, milliseconds.
    public var latencyMs = 0
    /// Receiving rate, bits per second.
    public var receiveBitsPerSecond = 0.0
    /// Packets received, detected lost, retransmitted (received), and given up at the latency window.
    public var packetsReceived: Int64 = 0
    public var packetsLost: Int64 = 0
    public var packetsRetransmitted: Int64 = 0
    public var packetsDropped: Int64 = 0

    /// The snapshot of `stats` with `sessions` publishing.
    public init(sessions: Int, stats: SRTLinkStats) {
        self.sessions = sessions
        rttMs =
            Double(stats.roundTrip.components.attoseconds) / 1e15 + Double(stats.roundTrip.components.seconds) * 1000
        latencyMs = Int(
            stats.latency.components.seconds * 1000 + stats.latency.components.attoseconds / 1_000_000_000_000_000
        )
        receiveBitsPerSecond = stats.receiveBitsPerSecond
        packetsReceived = stats.packetsReceived
        packetsLost = stats.packetsLost
        packetsRetransmitted = stats.packetsRetransmitted
        packetsDropped = stats.packetsDropped
    }
}
