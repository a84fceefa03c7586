import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MediaCore
import NIOCore
import WHIPIngest

extension OriginRoutes {
    /// RFC 9725 §4: `POST /whip/{key}` (offer → 201 answer), `DELETE /whip/{key}/{session}`, `PATCH` → 405.
    static func addWHIPRoutes(
        to router: Router<OriginRequestContext>, whip: WHIPIngestService?, authorize: WHIPAuthorizer?
    ) {
        router.post("/whip/:key") { request, context in
            let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
            guard type?.lowercased() == "application/sdp" else {
                return whipText(415, "a WHIP offer must be application/sdp")
            }
            let key = context.parameters.get("key") ?? ""
            // Refused before the offer is read: an unauthorized client costs no SDP parsing and no hub slot.
            if let authorize,
                let refusal = await whipRefusal(request, context: context, key: key, authorize: authorize)
            {
                return refusal
            }
            guard let whip else { return whipText(503, "WebRTC ingest is not running") }
            let limit = whip.configuration.maxOfferBytes
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: limit)
            } catch {
                return whipText(413, "offer larger than \(limit) bytes (webrtc.max_offer_bytes)")
            }
            do throws(WHIPIngestError) {
                let created = try await whip.createSession(streamKey: key, offer: String(buffer: body))
                var response = Response(
                    status: .created, headers: whipHeaders(),
                    body: ResponseBody(byteBuffer: ByteBuffer(string: created.answer)))
                response.headers[.contentType] = "application/sdp"
                response.headers[.location] = "/whip/\(key)/\(created.sessionID)"
                response.headers[.eTag] = created.etag
                return response
            } catch {
                return whipText(error.httpStatus, error.description)
            }
        }
        router.delete("/whip/:key/:session") { _, context in
            guard let whip else { return whipText(503, "WebRTC ingest is not running") }
            do throws(WHIPIngestError) {
                try whip.endSession(id: context.parameters.get("session") ?? "", key: context.parameters.get("key"))
                return whipText(200, "")
            } catch {
                return whipText(error.httpStatus, error.description)
            }
        }
        // RFC 9725 §4.3: trickle ICE and ICE restarts are optional; we gather everything up front (ICE-lite).
        router.patch("/whip/:key/:session") { _, _ in
            var response = whipText(405, "trickle ICE is not supported")
            response.headers[.allow] = "DELETE, OPTIONS"
            return response
        }
    }

    /// RFC 6750 §3: nil when allowed, else 401 with a `WWW-Authenticate: Bearer` challenge (`invalid_token` if sent).
    static func whipRefusal(
        _ request: Request, context: OriginRequestContext, key: String, authorize: WHIPAuthorizer
    ) async -> Response? {
        // A malformed key gets its 400 from the service; there is nothing to authorize it for.
        guard let streamKey = StreamKey(key) else { return nil }
        let credential = BearerCredential(header: request.headers[.authorization])
        var token: String?
        if case .token(let t) = credential { token = t }
        let reason: String
        if credential == .malformed {
            reason = "the Authorization header must be 'Bearer <token>'"
        } else {
            let decision = await authorize(WHIPAuthRequest(key: streamKey, token: token, peerIP: context.peerIP))
            switch decision {
            case .allowed(let by):
                context.logger.info("WHIP publish authorized", metadata: ["stream": "\(key)", "auth": "\(by)"])
                return nil
            case .denied(let why):
                reason = why
            }
        }
        context.logger.warning(
            "WHIP publish refused",
            metadata: ["stream": "\(key)", "peer": "\(context.peerIP ?? "unknown")", "reason": "\(reason)"])
        var response = whipText(401, "publish refused: \(reason)")
        response.headers[.wwwAuthenticate] =
            credential == .none ? "Bearer realm=\"sluice\"" : "Bearer realm=\"sluice\", error=\"invalid_token\""
        return response
    }

    /// CORS for browser publishers: they read Location and ETag from the 201, WWW-Authenticate from a 401.
    static func whipHeaders() -> HTTPFields {
        var headers = HTTPFields()
        headers[OriginResponse.allowOrigin] = "*"
        headers[OriginResponse.exposeHeaders] = "Location, ETag, Link, Accept-Post, WWW-Authenticate"
        headers[.cacheControl] = "no-store"
        return headers
    }

    static func whipText(_ status: Int, _ message: String) -> Response {
        var headers = whipHeaders()
        headers[.contentType] = "text/plain; charset=utf-8"
        let body = message.isEmpty ? "" : message + "\n"
        return Response(
            status: HTTPResponse.Status(code: status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
