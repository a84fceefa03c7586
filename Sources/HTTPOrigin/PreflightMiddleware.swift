import HTTPTypes
import Hummingbird

/// Answers every CORS preflight (OPTIONS) before routing, so each path allows GET from any origin.
struct PreflightMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .options else { return try await next(request, context) }
        var response = OriginResponse.text(204, "", maxAge: 0)
        response.headers[HTTPField.Name("Access-Control-Allow-Methods")!] = "GET, HEAD, OPTIONS"
        if request.uri.path.hasPrefix("/whip/") {
            // RFC 9725 §4.1: WHIP endpoints advertise the offer type and allow POST/DELETE from any origin.
            response.headers[HTTPField.Name("Access-Control-Allow-Methods")!] = "POST, DELETE, OPTIONS"
            response.headers[HTTPField.Name("Accept-Post")!] = "application/sdp"
            response.headers[HTTPField.Name("Access-Control-Expose-Headers")!] =
                "Location, ETag, Link, Accept-Post, WWW-Authenticate"
        }
        // `*` never covers Authorization (Fetch standard): WHIP publishers with a bearer token need it named.
        response.headers[HTTPField.Name("Access-Control-Allow-Headers")!] =
            request.uri.path.hasPrefix("/whip/") ? "Authorization, Content-Type, If-Match" : "*"
        // Preflight results may be cached: LL-HLS URLs differ every request, so this only helps tooling.
        response.headers[HTTPField.Name("Access-Control-Max-Age")!] = "600"
        return response
    }
}
