/// Where a live stream's numbering stands on the node that packages it, recorded in the cluster's registry so that a
/// node its encoder reconnects to continues the numbers viewers follow instead of starting again at 1.
public struct StreamPosition: Sendable, Equatable {
    /// The MSN the next segment gets (the open one, if any, is `nextMSN - 1`).
    public var nextMSN: Int
    /// The discontinuity sequence number of the newest segment (what players number it).
    public var discontinuity: Int
    /// The stream life's epoch on that node (the first path segment of its media URIs).
    public var epoch: String
    /// The node that recorded it (its node URL).
    public var node: String
    /// When it was recorded, on that node's wall clock.
    public var recordedAt: WallTime

    /// A position as recorded by `node` at `recordedAt`.
    public init(nextMSN: Int, discontinuity: Int, epoch: String, node: String, recordedAt: WallTime) {
        self.nextMSN = nextMSN
        self.discontinuity = discontinuity
        self.epoch = epoch
        self.node = node
        self.recordedAt = recordedAt
    }
}

/// How a stream starts when it continues another node's numbering: its first segment comes after every MSN the
/// other node can have listed, and begins with EXT-X-DISCONTINUITY.
public struct StreamContinuation: Sendable, Equatable {
    /// The first segment's MSN.
    public var firstMSN: Int
    /// EXT-X-DISCONTINUITY-SEQUENCE before the first segment, one past the other node's newest segment: it may have
    /// put its slate on air (one more discontinuity) after recording. The first segment is a discontinuity, so players
    /// number it two higher than the recorded one, never equal to a number the other node used (hls.js aligns
    /// segments with equal numbers and would place this stream over the slate).
    public var discontinuitySequence: Int
    /// The position it continues (for the log).
    public var position: StreamPosition

    /// Continues `position` at `now`. The other node may have opened a segment per `segmentTarget` since it recorded
    /// the position, and for `slack` more (a node still up runs its slate until it sees the new holder), so the first
    /// MSN leaves room for all of them plus a preload hint. Nil when the record is older than `maxAge` (a stream long
    /// gone, even if its record outlived its TTL) or the segment target is not positive.
    public init?(
        continuing position: StreamPosition,
        now: WallTime,
        segmentTarget: Duration,
        slack: Duration,
        maxAge: Duration
    ) {
        guard segmentTarget > .zero else { return nil }
        // A clock behind the recorder's reads as no time passed, never as time going back.
        let age = max(.zero, now.duration(since: position.recordedAt))
        guard age <= maxAge else { return nil }
        let segments = Int(((age + slack) / segmentTarget).rounded(.up))
        firstMSN = position.nextMSN + segments + 1
        discontinuitySequence = position.discontinuity + 1
        self.position = position
    }
}
