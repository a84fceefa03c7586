import Hummingbird

extension OriginRoutes {
    /// `GET /readyz`: 200 `ready` once every service started and the origin is bound; 503 while starting or draining.
    static func addOpsRoutes(to router: Router<OriginRequestContext>, readiness: OriginReadiness) {
        router.get("/readyz") { _, _ in
            let phase = readiness.current
            return OriginResponse.text(phase == .ready ? 200 : 503, phase.rawValue, maxAge: 0)
        }
    }
}
