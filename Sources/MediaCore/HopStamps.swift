/// Monotonic instants a frame passed on its way through the gateway (DESIGN.md "Latency model").
public struct HopStamps: Sendable, Hashable {
    /// Publisher capture wall clock, when the source carries it (SEI or sender report).
    public var capture: WallTime?
    /// First byte of the frame received from the network.
    public var firstByte: ContinuousClock.Instant?
    /// Frame fully parsed by ingest and handed to the hub.
    public var ingested: ContinuousClock.Instant?
    /// Wall clock at ingest (maps media time to EXT-X-PROGRAM-DATE-TIME).
    public var ingestWall: WallTime?

    /// Creates an empty set of stamps.
    public init(
        capture: WallTime? = nil, firstByte: ContinuousClock.Instant? = nil,
        ingested: ContinuousClock.Instant? = nil, ingestWall: WallTime? = nil
    ) {
        self.capture = capture
        self.firstByte = firstByte
        self.ingested = ingested
        self.ingestWall = ingestWall
    }
}
