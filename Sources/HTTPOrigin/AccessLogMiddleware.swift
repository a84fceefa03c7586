import HTTPTypes
import Hummingbird
import Logging

/// One debug line per request with status and time taken: what a player fetched, in what order, and what it got.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        context.logger.debug(
            "access",
            metadata: [
                "path": "\(request.uri)", "status": "\(response.status.code)",
                "ms": "\((ContinuousClock.now - start).components.attoseconds / 1_000_000_000_000_000 + (ContinuousClock.now - start).components.seconds * 1000)",
            ])
        return response
    }
}
