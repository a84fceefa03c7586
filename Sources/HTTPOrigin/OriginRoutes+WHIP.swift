import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WHIPIngest

extension OriginRoutes {
    /// Largest offer body read (browser offers are ~5 KB; the SDP parser has its own limit below this).
    static let whipOfferLimit = 64 * 1024

    /// RFC 9725 §4: `POST /whip/{key}` (offer → 201 answer), `DELETE /whip/{key}/{session}`, `PATCH` → 405.
    static func addWHIPRoutes(to router: Router<BasicRequestContext>, whip: WHIPIngestService?) {
        router.post("/whip/:key") { request, context in
            guard let whip else { return whipText(503, "WebRTC ingest is not running") }
            let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
            guard type?.lowercased() == "application/sdp" else {
                return whipText(415, "a WHIP offer must be application/sdp")
            }
            let key = context.parameters.get("key") ?? ""
            let body = try await request.body.collect(upTo: whipOfferLimit)
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

    /// CORS for browser publishers: they read Location and ETag from the 201.
    static func whipHeaders() -> HTTPFields {
        var headers = HTTPFields()
        headers[OriginResponse.allowOrigin] = "*"
        headers[OriginResponse.exposeHeaders] = "Location, ETag, Link, Accept-Post"
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
