import HTTPTypes
import Hummingbird

/// Answers every CORS preflight (OPTIONS) before routing, so each path allows GET from any origin.
struct PreflightMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .options else { return try await next(request, context) }
        var response = OriginResponse.text(204, "", maxAge: 0)
        response.headers[HTTPField.Name("Access-Control-Allow-Methods")!] = "GET, HEAD, OPTIONS"
        response.headers[HTTPField.Name("Access-Control-Allow-Headers")!] = "*"
        // Preflight results may be cached: LL-HLS URLs differ every request, so this only helps tooling.
        response.headers[HTTPField.Name("Access-Control-Max-Age")!] = "600"
        return response
    }
}
