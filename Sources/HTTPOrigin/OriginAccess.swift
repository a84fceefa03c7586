import HTTPTypes
import Hummingbird
import MediaCore
import Synchronization

/// Who may watch and how many may wait: viewer tokens (`auth.view.*`) and blocking-request limits (`limits.*`).
public struct OriginAccess: Sendable {
    /// Secret for viewer tokens; when set, `/live/...` needs the `/t/{token}/live/...` form (see docs/AUTH.md).
    public var viewerSecret: String?
    /// Most held playlist requests waiting on one stream key; more get 503. Held: a blocking reload (`_HLS_msn`),
    /// or any playlist of a key that is not live yet (held up to `hls.start_wait_s` for its publisher).
    public var maxBlockingPerStream: Int = 1_000
    /// Most held playlist requests waiting across all stream keys; more get 503.
    public var maxBlockingTotal: Int = 10_000
    /// `Retry-After` sent with those 503s.
    public var retryAfter: Duration = .seconds(1)

    /// No tokens, generous limits.
    public init() {}
}

extension OriginRoutes {
    /// Installs the token check (when a secret is set) and the held-request limit; `isLive` says whether a stream
    /// key is being served (a playlist of one that is not is held for its publisher).
    static func addAccessControl(
        to router: Router<OriginRequestContext>,
        access: OriginAccess,
        waiting: BlockingCounter,
        isLive: @escaping @Sendable (String) -> Bool
    ) {
        if let secret = access.viewerSecret {
            router.middlewares.add(ViewerTokenMiddleware(secret: secret, routes: RouterHandle(router)))
        }
        router.middlewares.add(BlockingLimitMiddleware(access: access, waiting: waiting, isLive: isLive))
    }
}

/// `/t/{token}/live/{key}/...` → `/live/{key}/...` when the token is valid for `key`; bare `/live/...` is 403.
///
/// The token sits in the path, not the query: relative playlist URIs keep it for every part, and a CDN that
/// keys on the path caches one copy per token, which every viewer of a token window shares.
struct ViewerTokenMiddleware: RouterMiddleware {
    typealias Context = OriginRequestContext
    let secret: String
    let routes: RouterHandle
    /// Marks a request this middleware already checked and re-dispatched; unguessable, so clients cannot forge it.
    let passed = HTTPField.Name("X-Sluice-Token-Checked")!
    let marker = (0..<4).map { _ in String(UInt64.random(in: .min ... .max), radix: 16) }.joined()

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        if request.headers[passed] == marker { return try await next(request, context) }
        let path = request.uri.path
        if path.hasPrefix("/live/") { return OriginResponse.text(403, "viewer token required", maxAge: 1) }
        guard path.hasPrefix("/t/") else { return try await next(request, context) }
        let parts = path.split(separator: "/", maxSplits: 4, omittingEmptySubsequences: false)
        // ["", "t", token, "live", "key/rest"]
        guard parts.count == 5, parts[3] == "live", let key = parts[4].split(separator: "/").first else {
            return OriginResponse.text(404, "not found", maxAge: 1)
        }
        let now = WallTime.now().nanosecondsSince1970 / 1_000_000_000
        do {
            try SignedToken.verifyViewerToken(parts[2], key: String(key), secret: secret, now: now)
        } catch {
            return OriginResponse.text(403, "viewer token refused: \(error)", maxAge: 1)
        }
        var head = request.head
        let query = request.uri.query.map { "?\($0)" } ?? ""
        head.path = "/live/\(parts[4])\(query)"
        head.headerFields[passed] = marker
        // Routes are matched before middleware runs, so the rewritten path goes through the router again.
        return try await routes.responder.respond(to: Request(head: head, body: request.body), context: context)
    }
}

/// The router's responder, built on first use (after every route is registered) and kept.
// Unchecked: the router is only read, under the lock, once set-up has finished adding routes.
final class RouterHandle: @unchecked Sendable {
    private let router: Router<OriginRequestContext>
    private let built = Mutex<RouterResponder<OriginRequestContext>?>(nil)

    init(_ router: Router<OriginRequestContext>) { self.router = router }

    var responder: RouterResponder<OriginRequestContext> {
        built.withLock { b in
            if let b { return b }
            let r = router.buildResponder()
            b = r
            return r
        }
    }
}

/// Bounds held playlist requests per stream key and in total: beyond either, 503 with `Retry-After`. Held are
/// blocking reloads (`_HLS_msn`, RFC 8216bis §6.2.5.2) and playlists of a key not live yet (start wait): both park
/// a request for seconds, so either kind unbounded lets clients pile up connections.
struct BlockingLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: OriginAccess
    let waiting: BlockingCounter
    let isLive: @Sendable (String) -> Bool

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        let path = request.uri.path
        guard path.hasPrefix("/live/"), path.hasSuffix(".m3u8"),
            let key = path.dropFirst(6).split(separator: "/").first.map(String.init),
            request.uri.queryParameters.get("_HLS_msn") != nil || !isLive(key)
        else { return try await next(request, context) }
        guard waiting.enter(key, perStream: access.maxBlockingPerStream, total: access.maxBlockingTotal) else {
            var response = OriginResponse.text(503, "too many waiting playlist requests", maxAge: 0)
            response.headers[.retryAfter] = "\(max(1, access.retryAfter.components.seconds))"
            return response
        }
        defer { waiting.leave(key) }
        return try await next(request, context)
    }
}

/// Held requests in flight, per stream key and in total.
final class BlockingCounter: Sendable {
    private let state = Mutex<(perKey: [String: Int], total: Int)>(([:], 0))

    /// Counts one more waiter for `key`; false (nothing counted) when a limit is reached.
    func enter(_ key: String, perStream: Int, total: Int) -> Bool {
        state.withLock { s in
            let n = s.perKey[key, default: 0]
            guard n < perStream, s.total < total else { return false }
            s.perKey[key] = n + 1
            s.total += 1
            return true
        }
    }

    /// Counts one waiter for `key` as done.
    func leave(_ key: String) {
        state.withLock { s in
            let n = s.perKey[key, default: 0] - 1
            s.perKey[key] = n > 0 ? n : nil
            s.total -= 1
        }
    }

    /// Waiters now: total and for `key`.
    func waiting(_ key: String? = nil) -> Int {
        state.withLock { s in key.map { s.perKey[$0, default: 0] } ?? s.total }
    }
}
