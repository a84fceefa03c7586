import Synchronization

/// Whether the gateway takes traffic (`GET /readyz`): starting until every service is up, draining on shutdown.
public final class OriginReadiness: Sendable {
    /// The phases `/readyz` reports.
    public enum Phase: String, Sendable {
        /// Listeners not all bound yet: 503.
        case starting
        /// Every service started and the origin bound: 200.
        case ready
        /// Graceful shutdown began: 503, so load balancers stop sending viewers.
        case draining
    }

    private let phase = Mutex(Phase.starting)

    /// Starts in `.starting`.
    public init() {}

    /// The phase now.
    public var current: Phase { phase.withLock { $0 } }

    /// Every service is up; ignored once draining.
    public func markReady() {
        phase.withLock { if $0 == .starting { $0 = .ready } }
    }

    /// Shutdown began; final.
    public func markDraining() {
        phase.withLock { $0 = .draining }
    }
}
