import HTTPTypes
import Hummingbird
import LLHLSPackager
import MediaCore
import NIOCore

/// Turns packager answers into HTTP responses with the cache and CORS headers every resource needs.
enum OriginResponse {
    /// `Access-Control-Expose-Headers: Age` lets hls.js read Age behind a CDN (hls.js#3680).
    static let exposeHeaders = HTTPField.Name("Access-Control-Expose-Headers")!
    static let allowOrigin = HTTPField.Name("Access-Control-Allow-Origin")!
    /// A part's publication instant (Unix seconds, microseconds): load generators behind an edge measure delivery
    /// from the origin's own moment, not from the first response they happened to see.
    static let published = HTTPField.Name("X-Sluice-Published")!

    static func make(_ r: HLSResponse) -> Response {
        // The payload's storage is shared by every viewer of the part or playlist: no copy per response.
        Response(
            status: HTTPResponse.Status(code: r.status),
            headers: fields(r),
            body: ResponseBody(byteBuffer: r.payload)
        )
    }

    /// The fields every answer carries, from the router or the fast path: type, caching and CORS.
    static func fields(_ r: HLSResponse) -> HTTPFields {
        var headers = HTTPFields()
        if let type = r.contentType { headers[.contentType] = type }
        headers[.cacheControl] = cacheControl(r)
        headers[allowOrigin] = "*"
        headers[exposeHeaders] = "Age, X-Sluice-Published"
        return headers
    }

    /// `public, max-age=N[, immutable]`, `public, max-age=0, s-maxage=N` for edges only, or `no-cache` for answers an
    /// edge must not keep.
    static func cacheControl(_ r: HLSResponse) -> String {
        guard r.maxAge > 0 else { return "no-cache" }
        if r.sharedCachesOnly { return "public, max-age=0, s-maxage=\(r.maxAge)" }
        return r.immutable ? "public, max-age=\(r.maxAge), immutable" : "public, max-age=\(r.maxAge)"
    }

    /// `1795690022.207823`: seconds since 1970 with six decimals.
    static func publishedValue(_ t: WallTime) -> String {
        let micros = t.nanosecondsSince1970 / 1000
        let fraction = String(micros % 1_000_000)
        return "\(micros / 1_000_000).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)"
    }

    static func text(_ status: Int, _ message: String, maxAge: Int) -> Response {
        make(
            status == 204
                ? HLSResponse(status: 204, contentType: nil, maxAge: maxAge, body: [])
                : HLSResponse.error(status, message, maxAge: maxAge)
        )
    }
}
