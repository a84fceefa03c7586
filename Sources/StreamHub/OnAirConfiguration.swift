/// How a key's air is kept alive: when a backup takes over, when the primary gets it back, and the slate between.
public struct OnAirConfiguration: Sendable, Equatable {
    /// Who goes back on air when the primary returns while the backup is on air (`ingest.failback`).
    public enum Failback: String, Sendable, Equatable {
        /// The primary, at its next keyframe.
        case auto
        /// Nobody: the backup stays on air until it leaves or stalls.
        case manual
    }

    /// No media from the on-air publisher for this long counts as a drop (`ingest.failover_after_ms`).
    public var failoverAfter: Duration = .milliseconds(500)
    /// `ingest.failback`.
    public var failback: Failback = .auto
    /// While nobody is on air, the slate keeps the stream advancing (`ingest.slate`).
    public var slate = true
    /// How long the air outlives its last publisher (the slate runs this long); zero ends it with the publisher.
    public var grace: Duration = .zero
    /// A publisher that dropped this many times within `flapWindow` waits `flapHold` (doubling) before it returns.
    public var flapLimit = 3
    /// The window in which drops count as flapping.
    public var flapWindow: Duration = .seconds(20)
    /// The first hold of a flapping publisher; each further drop doubles it, up to eight times.
    public var flapHold: Duration = .seconds(1)
    /// The slate, once on air, stays at least this long: a slate segment shorter than hls.js's fragment look-up
    /// tolerance (0.25 s) was skipped as a hole, and its audio stopped there (a backup's keyframe right after a kill).
    public var minimumSlate: Duration = .milliseconds(500)
    /// How long after a publisher's tracks go on air the slate for them is made, ahead of its first use: a stream's
    /// start (decoders, the ladder, fast start) needs the cores more.
    public var slateWarmUp: Duration = .seconds(5)

    /// The defaults: a backup takes over after 500 ms without media, failback is automatic, the slate is on but the
    /// air ends with its last publisher until a grace is set.
    public init() {}
}
