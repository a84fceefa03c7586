/// Paces requests for a keyframe (a WebRTC viewer joining, a PLI/FIR, a decoder needing a picture): at most one per
/// `interval`, and a request inside the window is deferred to its end, never dropped. Any keyframe that passes
/// while a request waits answers it, so a deferred request costs nothing when the source's own IDR comes first.
///
/// A value that returns whether to ask now; the caller owns the clock and calls `tick` as time passes (per frame).
public struct KeyframeRequestPacer: Sendable, Hashable {
    /// Shortest time between two requests passed on.
    public let interval: Duration
    /// When the last request was passed on.
    public private(set) var lastRequest: ContinuousClock.Instant?
    /// A request is waiting for the window to end (or for a keyframe to answer it).
    public private(set) var isDeferred = false
    /// Requests passed on (at once or when their window ended).
    public private(set) var passed = 0
    /// Requests that came inside the window (folded into the one deferred request).
    public private(set) var deferred = 0

    /// A pacer that passes at most one request per `interval`.
    public init(interval: Duration) {
        self.interval = interval
    }

    /// Someone wants a keyframe at `now`; true when the caller asks its source now.
    public mutating func requested(now: ContinuousClock.Instant) -> Bool {
        if let lastRequest, lastRequest.duration(to: now) < interval {
            deferred += 1
            isDeferred = true
            return false
        }
        pass(now)
        return true
    }

    /// A keyframe went out (or came in): it answers a deferred request. The window stays, so an IDR storm cannot
    /// follow a natural keyframe.
    public mutating func keyframePassed() {
        isDeferred = false
    }

    /// Time went on; true when a deferred request's window ended and the caller asks its source now.
    public mutating func tick(now: ContinuousClock.Instant) -> Bool {
        guard isDeferred, let deadline = deferredUntil, deadline <= now else { return false }
        pass(now)
        return true
    }

    /// When a deferred request will be passed on; nil when none waits.
    public var deferredUntil: ContinuousClock.Instant? {
        guard isDeferred else { return nil }
        return lastRequest.map { $0.advanced(by: interval) }
    }

    private mutating func pass(_ now: ContinuousClock.Instant) {
        lastRequest = now
        isDeferred = false
        passed += 1
    }
}
