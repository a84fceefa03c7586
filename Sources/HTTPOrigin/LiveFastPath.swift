import HTTPTypes
import LLHLSPackager
import Logging
import MediaCore
import NIOCore
import Synchronization
import Telemetry

/// The LL-HLS hot path of the origin, shared by every connection's `LiveFastPathHandler`: media playlists and
/// media of live streams answered on the event loop, with the router's headers, limits and telemetry.
///
/// Only what the router would answer the same way comes here: a GET of `/live/{key}/{rendition}.m3u8` or
/// `/live/{key}/{epoch}/{rendition}/{file}` for a stream and rendition being served, under `/t/{token}` with a
/// valid viewer token when the origin asks for one.
/// Everything else (HEAD, the multivariant, unknown keys, start waits, malformed directives) goes to the router.
final class LiveFastPath: Sendable {
    let packager: LLHLSPackager
    let access: OriginAccess
    let waiting: BlockingCounter
    let logger: Logger
    /// The `Server` field the application adds to every response.
    let serverName: String?
    let dates = HTTPDateCache()
    /// Viewer tokens verified so far, when the origin asks for them.
    let tokens: ViewerTokenCache?
    private let counts = Mutex<(answered: Int, parked: Int)>((0, 0))

    init(packager: LLHLSPackager, access: OriginAccess, waiting: BlockingCounter, logger: Logger, serverName: String?) {
        self.packager = packager
        self.access = access
        self.waiting = waiting
        self.logger = logger
        self.serverName = serverName
        self.tokens = access.viewerSecret.map { ViewerTokenCache(secret: $0) }
    }

    /// Requests this path answered, and how many of them waited parked on a stream.
    var answered: (total: Int, parked: Int) { counts.withLock { ($0.answered, $0.parked) } }

    /// What the fast path answers for `head` from `peerIP`, or nil to leave the request to the router.
    func route(_ head: HTTPRequest, peerIP: String? = nil) -> FastRoute? {
        guard head.method == .get, let full = head.path, let live = LivePath.parse(full) else { return nil }
        // With a secret, only `/t/{token}/live/…` with a valid token comes here (the router answers the 403s);
        // without one, token paths are the router's 404s.
        if let tokens {
            guard let token = live.token,
                tokens.admits(token, key: live.key, now: WallTime.now().nanosecondsSince1970 / 1_000_000_000)
            else { return nil }
        } else if live.token != nil {
            return nil
        }
        guard let key = StreamKey(live.key), let stream = packager.stream(for: key) else { return nil }
        switch live.resource {
        case .playlist(let rendition):
            guard rendition != "index", stream.hasRendition(rendition) else { return nil }
            // A malformed directive gets the router's 400.
            guard var directives = try? PlaylistRequest(query: live.directives) else { return nil }
            directives.fromMediaElement = MediaElementRequest.matches(head.headerFields)
            directives.client = peerIP
            return FastRoute(
                key: key,
                stream: stream,
                target: live.target,
                path: full,
                ask: .playlist(rendition: rendition, directives)
            )
        case .media(let epoch, let rendition, let file):
            guard stream.hasRendition(rendition) else { return nil }
            return FastRoute(
                key: key,
                stream: stream,
                target: live.target,
                path: full,
                ask: .media(epoch: epoch, rendition: rendition, file: file)
            )
        }
    }

    /// Counts a request in as the router's middleware would; a 503 reply when the held-request limit refuses it.
    func begin(_ route: FastRoute, peer: String?) -> FastReply? {
        if route.isBlocking {
            guard
                waiting.enter(
                    route.key.rawValue,
                    perStream: access.maxBlockingPerStream,
                    total: access.maxBlockingTotal
                )
            else {
                let refused = reply(HLSResponse.error(503, "too many waiting playlist requests", maxAge: 0), route)
                var head = refused.head
                head.headerFields[.retryAfter] = "\(max(1, access.retryAfter.components.seconds))"
                return FastReply(head: head, encoded: EncodedResponseHead(head), body: refused.body, date: refused.date)
            }
        }
        let telemetry = packager.telemetry
        telemetry.countRequest(stream: route.key, kind: route.target.kind)
        switch route.target.kind {
        case .playlistBlocking:
            telemetry.notePlaylistFetch(stream: route.key, client: peer)
            telemetry.blockingRequestStarted(stream: route.key, video: route.target.rendition != "audio")
        case .playlist:
            telemetry.notePlaylistFetch(stream: route.key, client: peer)
        default:
            break
        }
        return nil
    }

    /// Counts a request out: limits released, bytes counted; returns the answer's publication instant (`published`)
    /// when this is the first response carrying its part (the deliver hop is recorded once the bytes are written).
    func end(
        _ route: FastRoute,
        status: Int,
        bytes: Int,
        parked: Bool,
        published: ContinuousClock.Instant? = nil
    ) -> ContinuousClock.Instant? {
        counts.withLock {
            $0.answered += 1
            if parked { $0.parked += 1 }
        }
        let telemetry = packager.telemetry
        if route.isBlocking {
            waiting.leave(route.key.rawValue)
            telemetry.blockingRequestEnded(stream: route.key, video: route.target.rendition != "audio")
        }
        telemetry.countSent(stream: route.key, rendition: route.target.rendition ?? "index", bytes: bytes)
        guard status == 200 else { return nil }
        return TelemetryMiddleware<OriginRequestContext>.firstDelivery(
            route.target,
            published: published,
            stream: route.key,
            telemetry: telemetry
        )
    }

    /// Builds the response the router would send for `r`: the same fields, once per shared answer.
    func reply(_ r: HLSResponse, _ route: FastRoute) -> FastReply {
        var fields = OriginResponse.fields(r)
        fields[.contentLength] = String(r.payload.readableBytes)
        if let published = OriginRoutes.publishedHeader(r, route.target) {
            fields[OriginResponse.published] = published
        }
        let date = dates.now
        fields[.date] = date
        if let serverName { fields[.server] = serverName }
        let head = HTTPResponse(status: HTTPResponse.Status(code: r.status), headerFields: fields)
        return FastReply(head: head, encoded: EncodedResponseHead(head), body: r.payload, date: date)
    }

    /// `reply` with the current `Date` (a shared reply may be older than this second).
    func dated(_ reply: FastReply) -> FastReply {
        let date = dates.now
        guard reply.date != date else { return reply }
        var fresh = reply
        fresh.head.headerFields[.date] = date
        fresh.date = date
        fresh.encodedBytes = reply.encoded.dated(date) ?? EncodedResponseHead(fresh.head).bytes
        return fresh
    }
}

/// A request the fast path answers: the stream, what it asks, and how telemetry names it.
struct FastRoute: Sendable {
    /// What is asked.
    enum Ask: Sendable {
        case playlist(rendition: String, PlaylistRequest)
        case media(epoch: String, rendition: String, file: String)
    }

    let key: StreamKey
    let stream: LLHLSStream
    let target: RequestTarget
    /// Path and query, for the access log.
    let path: String
    let ask: Ask

    /// A blocking reload (`_HLS_msn`): counted against the held-request limits.
    var isBlocking: Bool { target.kind == .playlistBlocking }

    /// Answers now (nil) or parks the request on its stream.
    func answer(_ deliver: @escaping @Sendable (SharedResponse) -> Void) -> LLHLSStream.ParkedRequest? {
        switch ask {
        case .playlist(let rendition, let request):
            stream.answerMediaPlaylist(rendition: rendition, request: request, deliver: deliver)
        case .media(let epoch, let rendition, let file):
            stream.answerMedia(epoch: epoch, rendition: rendition, file: file, deliver: deliver)
        }
    }
}

/// A response built once and written to every request that shares it: head fields (and their HTTP/1.1 bytes) and
/// the shared body.
struct FastReply: Sendable {
    var head: HTTPResponse
    /// `head` as HTTP/1.1 bytes, encoded once for every waiter.
    let encoded: EncodedResponseHead
    /// What HTTP/1.1 connections write: `encoded`, or a copy with a later `Date`.
    var encodedBytes: ByteBuffer
    let body: ByteBuffer
    /// The `Date` value in `head`.
    var date: String

    init(head: HTTPResponse, encoded: EncodedResponseHead, body: ByteBuffer, date: String) {
        self.head = head
        self.encoded = encoded
        self.encodedBytes = encoded.bytes
        self.body = body
        self.date = date
    }
}
