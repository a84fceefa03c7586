/// What a WHIP publish run sent and repaired.
public struct WHIPPublishReport: Sendable, Equatable {
    /// Video frames sent.
    public var videoFrames = 0
    /// Opus frames sent (20 ms each).
    public var audioFrames = 0
    /// Times the source was rewound.
    public var loops = 0
    /// Decode time of the last frame released, from the first.
    public var mediaTime: Duration = .zero
    /// The sender's counters (packets, NACKs answered, keyframes forced, reports).
    public var sender = WHIPSenderCounters()
    /// The session URL the endpoint returned in `Location`.
    public var resource: String?

    /// All frames sent.
    public var frames: Int { videoFrames + audioFrames }

    public init() {}
}
