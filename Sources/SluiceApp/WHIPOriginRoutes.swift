import Foundation
import HTTPOrigin
import Logging
import MediaCore
import PublishAuth
import StreamHub
import WHIPIngest

/// RFC 9725 §4: `POST /whip/{key}` (offer → 201 answer), `DELETE /whip/{key}/{session}`, `PATCH` → 405, contributed
/// to the origin, which knows nothing of WHIP.
enum WHIPOriginRoutes {
    /// Decides a publish; the gateway passes `PublishAuthorizer.authorize`, tests a recorder.
    typealias Authorize = @Sendable (PublishAuthRequest) async -> PublishAuthDecision

    /// CORS for browser publishers: they read Location and ETag from the 201, WWW-Authenticate from a 401.
    static let exposed = "Location, ETag, Link, Accept-Post, WWW-Authenticate"

    /// The routes over `whip` (nil answers 503), each POST decided by `authorize` (nil allows every publish).
    static func group(whip: WHIPIngestService?, authorize: Authorize?) -> OriginRouteGroup {
        OriginRouteGroup(
            prefix: "/whip/",
            routes: [
                OriginRoute(.post, "/whip/:key") { await offer($0, whip: whip, authorize: authorize) },
                OriginRoute(.delete, "/whip/:key/:session") { request in
                    guard let whip else { return text(503, "WebRTC ingest is not running") }
                    do throws(WHIPIngestError) {
                        try whip.endSession(id: request.parameters["session"] ?? "", key: request.parameters["key"])
                        return text(200, "")
                    } catch {
                        return text(error.httpStatus, error.description)
                    }
                },
                replies.patchRoute("/whip/:key/:session"),
            ],
            // RFC 9725 §4.1: WHIP endpoints advertise the offer type and allow POST/DELETE from any origin.
            preflight: replies.preflight
        )
    }

    static func offer(_ request: OriginRequest, whip: WHIPIngestService?, authorize: Authorize?) async -> OriginReply {
        let type = request.header("Content-Type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
        guard type?.lowercased() == "application/sdp" else { return text(415, "a WHIP offer must be application/sdp") }
        let key = request.parameters["key"] ?? ""
        // `?role=backup` asks for the key's standby seat.
        guard let seat = OnAirRole(rawValue: request.query["role"] ?? "primary") else {
            return text(400, "role '\(request.query["role"] ?? "")' is not primary or backup")
        }
        // Refused before the offer is read: an unauthorized client costs no SDP parsing and no hub slot.
        if let authorize, let refusal = await refusal(request, key: key, authorize: authorize) { return refusal }
        guard let whip else { return text(503, "WebRTC ingest is not running") }
        let limit = whip.configuration.maxOfferBytes
        let body: [UInt8]
        do {
            body = try await request.body(upTo: limit)
        } catch {
            return text(413, "offer larger than \(limit) bytes (webrtc.max_offer_bytes)")
        }
        do throws(WHIPIngestError) {
            let created = try await whip.createSession(
                streamKey: key,
                offer: String(decoding: body, as: UTF8.self),
                seat: seat
            )
            var reply = OriginReply(status: 201, headers: headers(), body: Array(created.answer.utf8))
            reply.headers += [
                ("Content-Type", "application/sdp"), ("Location", "/whip/\(key)/\(created.sessionID)"),
                ("ETag", created.etag),
            ]
            return reply
        } catch {
            return text(error.httpStatus, error.description)
        }
    }

    /// RFC 6750 §3: nil when allowed, else 401 with a `WWW-Authenticate: Bearer` challenge (`invalid_token` if sent).
    static func refusal(_ request: OriginRequest, key: String, authorize: Authorize) async -> OriginReply? {
        // A malformed key gets its 400 from the service; there is nothing to authorize it for.
        guard let streamKey = StreamKey(key) else { return nil }
        let credential = BearerCredential(header: request.header("Authorization"))
        let reason: String
        switch credential {
        case .malformed:
            reason = "the Authorization header must be 'Bearer <token>'"
        case .none, .token:
            var token: String?
            if case .token(let t) = credential { token = t }
            let decision = await authorize(
                PublishAuthRequest(key: streamKey, credential: token, peerIP: request.peerIP, transport: .whip)
            )
            switch decision {
            case .allowed(let by):
                request.logger.info("WHIP publish authorized", metadata: ["stream": "\(key)", "auth": "\(by)"])
                return nil
            case .denied(let why):
                reason = why
            }
        }
        request.logger.warning(
            "WHIP publish refused",
            metadata: ["stream": "\(key)", "peer": "\(request.peerIP ?? "unknown")", "reason": "\(reason)"]
        )
        var reply = text(401, "publish refused: \(reason)")
        reply.headers.append(
            (
                "WWW-Authenticate",
                credential == .none ? "Bearer realm=\"sluice\"" : "Bearer realm=\"sluice\", error=\"invalid_token\""
            )
        )
        return reply
    }

    static let replies = WebRTCEndpointReplies(exposed: exposed)

    static func headers() -> [(name: String, value: String)] { replies.headers }

    static func text(_ status: Int, _ message: String) -> OriginReply { replies.text(status, message) }
}
