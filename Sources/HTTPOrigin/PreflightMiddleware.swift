import HTTPTypes
import Hummingbird

/// Answers every CORS preflight (OPTIONS) before routing, so each path allows GET from any origin; a contributed
/// route group's own preflight fields replace the defaults under its prefix.
struct PreflightMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Contributed groups whose preflight differs from the GET-only default.
    let groups: [OriginRouteGroup]

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.method == .options else { return try await next(request, context) }
        var response = OriginResponse.text(204, "", maxAge: 0)
        response.headers[HTTPField.Name("Access-Control-Allow-Methods")!] = "GET, HEAD, OPTIONS"
        response.headers[HTTPField.Name("Access-Control-Allow-Headers")!] = "*"
        // Preflight results may be cached: LL-HLS URLs differ every request, so this only helps tooling.
        response.headers[HTTPField.Name("Access-Control-Max-Age")!] = "600"
        for group in groups where request.uri.path.hasPrefix(group.prefix) {
            for (name, value) in group.preflight {
                if let field = HTTPField.Name(name) { response.headers[field] = value }
            }
        }
        return response
    }
}
