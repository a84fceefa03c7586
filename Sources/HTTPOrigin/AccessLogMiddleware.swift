import HTTPTypes
import Hummingbird
import Logging
import MediaCore

/// One debug line per request with status and time taken: what a player fetched, in what order, and what it got.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        context.logger.debug(
            "access",
            metadata: ["path": "\(request.uri)", "status": "\(response.status.code)", "ms": "\(elapsed.milliseconds)"]
        )
        return response
    }
}
