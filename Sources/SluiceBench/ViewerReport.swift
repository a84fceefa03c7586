import MediaCore

/// One video frame a bench viewer received: when it was captured, downloadable, and shown by the modelled player.
public struct ViewerFrame: Sendable, Equatable {
    /// Publisher capture clock from the frame's SEI.
    public var capture: WallTime
    /// When the part or segment holding it was fully received.
    public var available: WallTime
    /// When the modelled player showed it; nil for frames decoded only to reach the join position.
    public var displayed: WallTime?

    /// A received frame.
    public init(capture: WallTime, available: WallTime, displayed: WallTime? = nil) {
        self.capture = capture
        self.available = available
        self.displayed = displayed
    }
}

/// What one bench viewer saw during its run.
public struct ViewerReport: Sendable, Equatable {
    /// Every video frame received that carried a capture time, in presentation order.
    public var frames: [ViewerFrame]
    /// When the viewer made its first request.
    public var joinedAt: WallTime
    /// When the player showed its first frame.
    public var firstFrameAt: WallTime?
    /// Times playback stopped because the next frame had not arrived.
    public var stalls: Int
    /// HTTP requests made (playlists and media).
    public var requests: Int
    /// What went wrong along the way (HTTP errors, unparsable media), in order.
    public var errors: [String]

    /// A report.
    public init(
        frames: [ViewerFrame] = [],
        joinedAt: WallTime,
        firstFrameAt: WallTime? = nil,
        stalls: Int = 0,
        requests: Int = 0,
        errors: [String] = []
    ) {
        self.frames = frames
        self.joinedAt = joinedAt
        self.firstFrameAt = firstFrameAt
        self.stalls = stalls
        self.requests = requests
        self.errors = errors
    }

    /// available − capture per frame: how late the frame could first be had.
    public var availableLatencies: [Duration] { frames.map { $0.available.duration(since: $0.capture) } }

    /// displayed − capture per displayed frame: glass-to-glass for this player.
    public var playerLatencies: [Duration] {
        frames.compactMap { f in f.displayed.map { $0.duration(since: f.capture) } }
    }
}
