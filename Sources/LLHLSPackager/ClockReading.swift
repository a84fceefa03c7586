import MediaCore

/// Both clocks, read once by the owner (`LLHLSStream`) and handed to the packaging state, which reads neither.
struct ClockReading: Sendable {
    /// Monotonic time: part publication instants and the hold limits.
    var instant: ContinuousClock.Instant
    /// Wall clock: the PROGRAM-DATE-TIME anchor of a session whose frames carry no ingest wall time.
    var wall: WallTime

    /// Reads both clocks now.
    static var now: ClockReading { ClockReading(instant: .now, wall: .now()) }
}
