import HTTPTypes
import Hummingbird
import LLHLSPackager
import NIOCore

/// Turns packager answers into HTTP responses with the cache and CORS headers every resource needs.
enum OriginResponse {
    /// `Access-Control-Expose-Headers: Age` lets hls.js read Age behind a CDN (hls.js#3680).
    static let exposeHeaders = HTTPField.Name("Access-Control-Expose-Headers")!
    static let allowOrigin = HTTPField.Name("Access-Control-Allow-Origin")!

    static func make(_ r: HLSResponse) -> Response {
        var headers = HTTPFields()
        if let type = r.contentType { headers[.contentType] = type }
        headers[.cacheControl] = r.maxAge > 0 ? "public, max-age=\(r.maxAge)" : "no-cache"
        headers[allowOrigin] = "*"
        headers[exposeHeaders] = "Age"
        return Response(
            status: HTTPResponse.Status(code: r.status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: r.body)))
    }

    static func text(_ status: Int, _ message: String, maxAge: Int) -> Response {
        make(
            status == 204
                ? HLSResponse(status: 204, contentType: nil, maxAge: maxAge, body: [])
                : HLSResponse.error(status, message, maxAge: maxAge))
    }
}
