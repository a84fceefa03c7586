import HTTPTypes
import Hummingbird
import LLHLSPackager
import MediaCore
import Telemetry

/// Counts every request by stream and kind, tracks waiting blocking reloads and viewers, counts bytes out, and
/// measures the deliver hop: part published → the first response carrying it written (once per part).
struct TelemetryMiddleware<Context: RequestContext>: RouterMiddleware {
    let packager: LLHLSPackager
    var telemetry: GatewayTelemetry { packager.telemetry }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let target = RequestTarget(path: request.uri.path, query: request.uri.query ?? "")
        telemetry.countRequest(stream: target.stream, kind: target.kind)
        guard let stream = target.stream else { return try await next(request, context) }
        var response: Response
        switch target.kind {
        case .playlistBlocking, .playlist, .multivariant:
            telemetry.notePlaylistFetch(stream: stream, client: Self.peer(context))
            if target.kind == .playlistBlocking {
                // Audio playlists ride along with a video one: only video waits count players.
                let video = target.rendition != "audio"
                telemetry.blockingRequestStarted(stream: stream, video: video)
                defer { telemetry.blockingRequestEnded(stream: stream, video: video) }
                response = try await next(request, context)
            } else {
                response = try await next(request, context)
            }
        default:
            response = try await next(request, context)
        }
        let rendition = target.rendition ?? "index"
        if let length = response.body.contentLength {
            telemetry.countSent(stream: stream, rendition: rendition, bytes: length)
        }
        // The router's answer is an HTTP response by now: the publication instant is looked up once, here.
        guard response.status == .ok,
            let published = Self.firstDelivery(
                target,
                published: target.file.flatMap { file in
                    target.rendition.flatMap { packager.stream(for: stream)?.published(rendition: $0, file: file) }
                },
                stream: stream,
                telemetry: telemetry
            )
        else { return response }
        // Measured once the body is handed to the connection, not when the handler returns.
        let body = response.body
        let telemetry = telemetry
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            try await body.write(writer)
            telemetry.record(.deliver, ContinuousClock.now - published, stream: stream, rendition: rendition)
        }
        return response
    }

    /// `published` (when the part, or a whole segment's last part, was listed) if this is the first response
    /// carrying that part or segment.
    static func firstDelivery(
        _ target: RequestTarget,
        published: ContinuousClock.Instant?,
        stream key: StreamKey,
        telemetry: GatewayTelemetry
    ) -> ContinuousClock.Instant? {
        guard let published, let file = target.file, let msn = file.msn, let rendition = target.rendition else {
            return nil
        }
        // A segment is claimed as a whole (part nil), apart from its parts.
        return telemetry.claimFirstDelivery(stream: key, rendition: rendition, msn: msn, part: file.part)
            ? published : nil
    }

    /// The peer's address and port when the request context exposes it (one viewer per client connection).
    static func peer(_ context: Context) -> String? {
        guard let address = (context as? any RemoteAddressRequestContext)?.remoteAddress else { return nil }
        return "\(address.ipAddress ?? "?"):\(address.port ?? 0)"
    }
}

/// What a request path names, for the `kind` label and the deliver hop.
struct RequestTarget: Equatable {
    var kind: HTTPRequestKind = .other
    var stream: StreamKey?
    var rendition: String?
    var msn: Int?
    var part: Int?

    /// Classifies (optionally under `/t/{token}`) `/live/{key}/index.m3u8`, `/live/{key}/{rendition}.m3u8[?_HLS_msn=…]` and
    /// `/live/{key}/{epoch}/{rendition}/{init-N.mp4|MSN.m4s|MSN.PART.m4s}`; anything else is `other`.
    init(path: String, query: String) {
        var parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        // Viewer-token paths (`/t/{token}/live/…`) name the same resources.
        if parts.count > 2 && parts[0] == "t" { parts.removeFirst(2) }
        guard parts.count >= 3, parts[0] == "live", let key = StreamKey(parts[1]) else { return }
        switch parts.count {
        case 3 where parts[2].hasSuffix(".m3u8"):
            classify(playlist: String(parts[2].dropLast(5)), query: query)
        case 5:
            guard classify(rendition: parts[3], file: parts[4]) else { return }
        default:
            return
        }
        stream = key
    }
}
