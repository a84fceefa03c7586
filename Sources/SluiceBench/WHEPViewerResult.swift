import MediaCore

/// What one bench WHEP viewer saw: every complete frame with its capture clock, when it joined and first had a
/// frame, and what the network lost.
struct WHEPViewerResult: Sendable, Equatable {
    /// A pause between complete frames longer than this counts as a stall (about 6 frames at 30 fps).
    static let stallGap: Duration = .milliseconds(200)

    /// Frames with a capture clock; `available` and `displayed` are both the instant the frame was complete.
    var frames: [ViewerFrame] = []
    /// Just before the offer was POSTed.
    var joinedAt: WallTime
    /// The 201 answer fully read, and DTLS connected.
    var answeredAt: WallTime?
    var connectedAt: WallTime?
    /// The first complete (keyframe-started) frame, and the latest one.
    var firstFrameAt: WallTime?
    var lastFrameAt: WallTime?
    /// Complete access units, keyframes among them, and those without a capture SEI.
    var framesReceived = 0
    var keyframes = 0
    var framesWithoutCapture = 0
    var stalls = 0
    var videoPacketsReceived = 0
    /// Video packets never received (RFC 3550 §6.4.1 cumulative lost, or gaps the reorder buffer gave up on).
    var videoPacketsLost = 0
    var audioPacketsReceived = 0
    /// PLIs sent (first join, loss).
    var keyframeRequests = 0
    var errors: [String] = []

    /// The same as a model viewer's report, for the figures every scenario shares.
    var report: ViewerReport {
        ViewerReport(
            frames: frames,
            joinedAt: joinedAt,
            firstFrameAt: firstFrameAt,
            stalls: stalls,
            requests: 2,
            errors: errors
        )
    }
}
