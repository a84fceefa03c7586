import MediaCore
import PublishAuth

/// Who may call the admin API (`POST /api/streams/{key}/recording`): with `api.admin_token` set, every caller must
/// present it as an RFC 6750 bearer token; without one, only loopback peers are allowed (a local operator or a
/// script on the same host), and everyone else is told to configure a token.
struct AdminAccess: Sendable, Equatable {
    /// The verdict on one request.
    enum Decision: Sendable, Equatable {
        /// Allowed, and why (for the log).
        case allowed(by: String)
        /// Refused with this status (401: no or a wrong token; 403: no token configured and not loopback), the
        /// `WWW-Authenticate` challenge to send (RFC 6750 §3) and a reason a person can act on.
        case refused(status: Int, challenge: String?, reason: String)
    }

    /// `api.admin_token` (nil: loopback only).
    var token: String?

    /// Decides a request from its `Authorization` field and TCP peer.
    func decide(authorization: String?, peerIP: String?) -> Decision {
        let credential = BearerCredential(header: authorization)
        guard let token else {
            if PublishAuthorizer.isLoopback(peerIP) { return .allowed(by: "loopback peer (no api.admin_token)") }
            return .refused(
                status: 403,
                challenge: nil,
                reason: "admin API refused: only loopback peers may use it while api.admin_token is unset"
            )
        }
        switch credential {
        case .token(let presented) where HMACSHA256.constantTimeEquals(Array(presented.utf8), Array(token.utf8)):
            return .allowed(by: "api.admin_token")
        case .token:
            return .refused(
                status: 401,
                challenge: #"Bearer realm="sluice-admin", error="invalid_token""#,
                reason: "admin API refused: wrong bearer token"
            )
        case .none, .malformed:
            return .refused(
                status: 401,
                challenge: #"Bearer realm="sluice-admin""#,
                reason: "admin API refused: send Authorization: Bearer <api.admin_token>"
            )
        }
    }
}
