import Foundation
import HTTPOrigin
import Logging
import MediaCore
import WHEPEgress

/// draft-ietf-wish-whep-03 §4: `POST /whep/{key}` (offer → 201 answer), `DELETE /whep/{key}/{session}`, `PATCH` →
/// 405, OPTIONS with `Accept-Post` (the origin's preflight), contributed to the origin, which knows nothing of WHEP.
enum WHEPOriginRoutes {
    /// CORS for browser viewers: they read Location and ETag from the 201, Retry-After from a 503.
    static let exposed = "Location, ETag, Link, Accept-Post, Retry-After, WWW-Authenticate"

    /// The routes over `whep` (nil answers 503); with a `viewerSecret`, a POST needs `Authorization: Bearer <viewer
    /// token>` for its key, the same token `/t/{token}/live/...` takes (docs/AUTH.md).
    /// With `owner` (the cluster), a POST for a key another node holds is answered `307` to that node's `/whep/{key}`.
    static func group(
        whep: WHEPEgressService?,
        viewerSecret: String?,
        owner: (@Sendable (StreamKey) async -> String?)? = nil
    ) -> OriginRouteGroup {
        OriginRouteGroup(
            prefix: "/whep/",
            routes: [
                OriginRoute(.post, "/whep/:key") { request in
                    if let owner, let key = StreamKey(request.parameters["key"] ?? ""), let node = await owner(key) {
                        return redirect(to: node, key: key)
                    }
                    return await offer(request, whep: whep, viewerSecret: viewerSecret)
                },
                OriginRoute(.delete, "/whep/:key/:session") { request in
                    guard let whep else { return text(503, "WebRTC playback is not running") }
                    do throws(WHEPEgressError) {
                        try whep.endSession(id: request.parameters["session"] ?? "", key: request.parameters["key"])
                        return text(200, "")
                    } catch {
                        return text(error.httpStatus, error.description)
                    }
                },
                replies.patchRoute("/whep/:key/:session"),
            ],
            preflight: replies.preflight
        )
    }

    /// `GET /api/whep`: every WHEP viewer now (`WHEPViewerReport`), for `sluice stats` and the dashboard.
    static func reports(whep: WHEPEgressService?) -> OriginRouteGroup {
        OriginRouteGroup(
            prefix: "/api/whep",
            routes: [
                OriginRoute(.get, "/api/whep") { _ in
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys]
                    let body = (try? encoder.encode(whep?.viewerReports() ?? [])) ?? Data("[]".utf8)
                    return OriginReply(
                        status: 200,
                        headers: headers() + [("Content-Type", "application/json")],
                        body: Array(body)
                    )
                }
            ]
        )
    }

    static func offer(_ request: OriginRequest, whep: WHEPEgressService?, viewerSecret: String?) async -> OriginReply {
        let type = request.header("Content-Type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
        guard type?.lowercased() == "application/sdp" else { return text(415, "a WHEP offer must be application/sdp") }
        let key = request.parameters["key"] ?? ""
        // Refused before the offer is read, as HLS playback is: an unauthorized viewer costs no SDP parsing.
        if let viewerSecret, let refusal = refusal(request, key: key, secret: viewerSecret) { return refusal }
        guard let whep else { return text(503, "WebRTC playback is not running") }
        let limit = whep.configuration.maxOfferBytes
        let body: [UInt8]
        do {
            body = try await request.body(upTo: limit)
        } catch {
            return text(413, "offer larger than \(limit) bytes")
        }
        do throws(WHEPEgressError) {
            let created = try await whep.createSession(streamKey: key, offer: String(decoding: body, as: UTF8.self))
            var reply = OriginReply(status: 201, headers: headers(), body: Array(created.answer.utf8))
            reply.headers += [
                ("Content-Type", "application/sdp"), ("Location", "/whep/\(key)/\(created.sessionID)"),
                ("ETag", created.etag), ("X-Sluice-Video-Source", created.videoSource),
            ]
            return reply
        } catch {
            request.logger.info("WHEP offer refused", metadata: ["stream": "\(key)", "reason": "\(error)"])
            var reply = text(error.httpStatus, error.description)
            if let seconds = error.retryAfterSeconds { reply.headers.append(("Retry-After", "\(seconds)")) }
            return reply
        }
    }

    /// RFC 6750 §3: nil when the bearer token is a valid viewer token for `key`, else 401 with a challenge.
    static func refusal(_ request: OriginRequest, key: String, secret: String) -> OriginReply? {
        let reason: String
        switch BearerCredential(header: request.header("Authorization")) {
        case .none:
            reason = "a viewer token is required (Authorization: Bearer <token>)"
        case .malformed:
            reason = "the Authorization header must be 'Bearer <token>'"
        case .token(let token):
            let now = WallTime.now().nanosecondsSince1970 / 1_000_000_000
            do {
                try SignedToken.verifyViewerToken(Substring(token), key: key, secret: secret, now: now)
                return nil
            } catch {
                reason = "viewer token refused: \(error)"
            }
        }
        request.logger.warning("WHEP viewer refused", metadata: ["stream": "\(key)", "reason": "\(reason)"])
        var reply = text(401, reason)
        reply.headers.append(("WWW-Authenticate", "Bearer realm=\"sluice\""))
        return reply
    }

    /// RFC 9725 §4.6 allows a redirect: the client POSTs the same offer (307 keeps method and body) to the owner.
    static func redirect(to node: String, key: StreamKey) -> OriginReply {
        var reply = text(307, "stream \(key) is served by \(node)")
        reply.headers.append(("Location", "\(node)/whep/\(key.rawValue)"))
        return reply
    }

    static let replies = WebRTCEndpointReplies(exposed: exposed)

    static func headers() -> [(name: String, value: String)] { replies.headers }

    static func text(_ status: Int, _ message: String) -> OriginReply { replies.text(status, message) }
}
