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
