import HTTPOrigin

/// What WHIP's and WHEP's HTTP endpoints answer alike (RFC 9725 §4, draft-ietf-wish-whep-03 §4): the CORS and
/// no-store headers of every reply, plain-text replies, the PATCH refusal, and the OPTIONS preflight.
struct WebRTCEndpointReplies: Sendable {
    /// `Access-Control-Expose-Headers` for this endpoint's browser clients.
    let exposed: String

    /// Headers of every reply.
    var headers: [(name: String, value: String)] {
        [
            ("Access-Control-Allow-Origin", "*"), ("Access-Control-Expose-Headers", exposed),
            ("Cache-Control", "no-store"),
        ]
    }

    /// A plain-text reply (empty for an empty message).
    func text(_ status: Int, _ message: String) -> OriginReply {
        OriginReply(
            status: status,
            headers: headers + [("Content-Type", "text/plain; charset=utf-8")],
            body: Array((message.isEmpty ? "" : message + "\n").utf8)
        )
    }

    /// Trickle ICE and ICE restarts are optional in both specs; we gather everything up front (ICE-lite).
    func patchRoute(_ path: String) -> OriginRoute {
        OriginRoute(.patch, path) { _ in
            var reply = text(405, "trickle ICE is not supported")
            reply.headers.append(("Allow", "DELETE, OPTIONS"))
            return reply
        }
    }

    /// The offer type and the methods, from any origin; `*` never covers Authorization (Fetch standard), so clients
    /// with a bearer token need it named.
    var preflight: [String: String] {
        [
            "Access-Control-Allow-Methods": "POST, DELETE, OPTIONS", "Accept-Post": "application/sdp",
            "Access-Control-Expose-Headers": exposed,
            "Access-Control-Allow-Headers": "Authorization, Content-Type, If-Match",
        ]
    }
}
