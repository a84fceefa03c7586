import HTTPOrigin
import ServiceLifecycle

/// Turns `/readyz` to 503 as soon as graceful shutdown begins. Listed last, so the group signals it first
/// (shutdown runs in reverse order) while the origin keeps serving until the end.
struct ReadinessService: Service {
    let readiness: OriginReadiness
    /// How long to keep serving with `/readyz` at 503 before the rest of the gateway stops.
    let drainDelay: Duration

    func run() async throws {
        try? await gracefulShutdown()
        readiness.markDraining()
        // Graceful shutdown waits for this service before signalling the next: everything keeps serving meanwhile.
        if drainDelay > .zero { try? await Task.sleep(for: drainDelay) }
    }
}
