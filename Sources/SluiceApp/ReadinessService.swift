import HTTPOrigin
import ServiceLifecycle

/// Turns `/readyz` to 503 as soon as graceful shutdown begins. Listed last, so the group signals it first
/// (shutdown runs in reverse order) while the origin keeps serving until the end.
struct ReadinessService: Service {
    let readiness: OriginReadiness

    func run() async throws {
        try? await gracefulShutdown()
        readiness.markDraining()
    }
}
