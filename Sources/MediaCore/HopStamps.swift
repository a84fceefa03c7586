/// Monotonic instants a frame passed on its way through the gateway (DESIGN.md "Latency model").
///
/// Each hop is the span between two stamps: ingest = firstByte → ingested, decode = ingested → decoded,
/// encode = decoded → encoded, package = (encoded ?? ingested) → part published. A rung's frame keeps its source
/// frame's capture, firstByte, ingested and ingestWall, so its stamps read in order from first byte to output.
public struct HopStamps: Sendable, Hashable {
    /// Publisher capture wall clock, when the source carries it (SEI or sender report).
    public var capture: WallTime?
    /// First byte of the frame received from the network.
    public var firstByte: ContinuousClock.Instant?
    /// Frame fully parsed by ingest and handed to the hub.
    public var ingested: ContinuousClock.Instant?
    /// Wall clock at ingest (maps media time to EXT-X-PROGRAM-DATE-TIME).
    public var ingestWall: WallTime?
    /// Ladder only: the source picture came out of the decoder (the decode hop ends here).
    public var decoded: ContinuousClock.Instant?
    /// Ladder only: this rung's packet came out of the encoder (the encode hop ends, the package hop starts here).
    public var encoded: ContinuousClock.Instant?

    /// Creates a set of stamps.
    public init(
        capture: WallTime? = nil,
        firstByte: ContinuousClock.Instant? = nil,
        ingested: ContinuousClock.Instant? = nil,
        ingestWall: WallTime? = nil,
        decoded: ContinuousClock.Instant? = nil,
        encoded: ContinuousClock.Instant? = nil
    ) {
        self.capture = capture
        self.firstByte = firstByte
        self.ingested = ingested
        self.ingestWall = ingestWall
        self.decoded = decoded
        self.encoded = encoded
    }

    /// When the frame entered the packager's input: encoded for a rung, ingested for the source.
    public var readyForPackaging: ContinuousClock.Instant? { encoded ?? ingested }

    /// True when every stamp present follows the one before it (firstByte ≤ ingested ≤ decoded ≤ encoded).
    public var isMonotonic: Bool {
        let ordered = [firstByte, ingested, decoded, encoded].compactMap { $0 }
        return zip(ordered, ordered.dropFirst()).allSatisfy { $0 <= $1 }
    }
}
