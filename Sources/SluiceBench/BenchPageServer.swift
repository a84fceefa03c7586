import Foundation
import HTTPOrigin
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The bench's own HTTP/1 server on a free loopback port for a real-player run: serves the player page and the
/// hls.js chunk, hands the page its commands (`go`, `join`, `stop`) by long poll, and collects what it posts.
///
/// Another origin than the gateway (whose CORS headers allow it), so the gateway is measured as a browser sees it.
final class BenchPageServer: Sendable {
    /// The listening port on 127.0.0.1.
    let port: Int
    private let channel: any Channel
    private let state: BenchPageState

    /// Binds 127.0.0.1 on a port the kernel picks; `hlsjs` is the chunk's bytes (nil for the native player).
    static func start(hlsjs: [UInt8]?) async throws(BenchError) -> BenchPageServer {
        let state = BenchPageState(hlsjs: hlsjs)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(BenchPageHandler(state: state))
                }
            }
        do {
            let channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
            guard let port = channel.localAddress?.port else {
                throw BenchError.browserFailed("page server has no port")
            }
            return BenchPageServer(port: port, channel: channel, state: state)
        } catch {
            throw .browserFailed("cannot start the page server on 127.0.0.1: \(error)")
        }
    }

    private init(port: Int, channel: any Channel, state: BenchPageState) {
        self.port = port
        self.channel = channel
        self.state = state
    }

    /// The page URL for `player` playing `source`.
    func pageURL(player: PlayerKind, source: String) -> String {
        let src = source.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? source
        return "http://127.0.0.1:\(port)/player.html?player=\(player.rawValue)&src=\(src)"
    }

    /// True once the page asked for its first command (its player library is loaded).
    var pageReady: Bool { state.pageReady }

    /// Issues a command to the page (answers its pending long poll).
    func send(_ command: String) { state.issue(command) }

    /// Everything the page posted so far.
    var trace: PlayerTrace { state.trace }

    /// Stops listening (open connections close with the process or the browser).
    func stop() async { try? await channel.close() }
}

/// The page server's shared state: commands, waiting long polls, the trace.
final class BenchPageState: Sendable {
    let hlsjs: [UInt8]?
    private struct Inner {
        var commands: [String] = []
        var waiters: [(after: Int, reply: @Sendable ([String]) -> Void)] = []
        var trace = PlayerTrace()
        var pageReady = false
    }
    private let inner = Mutex(Inner())

    init(hlsjs: [UInt8]?) { self.hlsjs = hlsjs }

    var pageReady: Bool { inner.withLock { $0.pageReady } }
    var trace: PlayerTrace { inner.withLock { $0.trace } }

    func issue(_ command: String) {
        let ready = inner.withLock { s -> [(@Sendable ([String]) -> Void, [String])] in
            s.commands.append(command)
            let due = s.waiters.filter { $0.after < s.commands.count }
            s.waiters.removeAll { $0.after < s.commands.count }
            return due.map { ($0.reply, Array(s.commands[$0.after...])) }
        }
        for (reply, commands) in ready { reply(commands) }
    }

    /// Replies with the commands after index `after`, now if there are any, else when the next one is issued.
    func commands(after: Int, reply: @escaping @Sendable ([String]) -> Void) {
        let now = inner.withLock { s -> [String]? in
            s.pageReady = true
            if after < s.commands.count { return Array(s.commands[after...]) }
            s.waiters.append((after, reply))
            return nil
        }
        if let now { reply(now) }
    }

    func add(_ batch: PlayerTrace.Batch) { inner.withLock { $0.trace.add(batch) } }
}

/// One connection of the page server: GET /player.html, GET /sluice-player.js, GET /hls-chunk.js, GET /cmd?after=N, POST /report.
private final class BenchPageHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let state: BenchPageState
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(state: BenchPageState) { self.state = state }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            body = []
        case .body(var buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let head else { return }
            route(head, context: context)
        }
    }

    private func route(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        switch (head.method, path) {
        case (.GET, "/player.html"):
            respond(context, head, .ok, "text/html; charset=utf-8", PackageResources.bench_player_html)
        case (.GET, "/sluice-player.js"):
            respond(context, head, .ok, "text/javascript", PlayerScript.javascript)
        case (.GET, "/hls-chunk.js"):
            if let js = state.hlsjs {
                respond(context, head, .ok, "text/javascript", js)
            } else {
                respond(context, head, .notFound, "text/plain", Array("no hls.js in this run\n".utf8))
            }
        case (.GET, "/cmd"):
            let after = head.uri.split(separator: "after=").last.flatMap { Int($0) } ?? 0
            let loop = context.eventLoop
            let box = NIOLoopBound((self, context), eventLoop: loop)
            state.commands(after: after) { commands in
                loop.execute {
                    let (handler, context) = box.value
                    handler.respond(context, head, .ok, "text/plain", Array(commands.map { $0 + "\n" }.joined().utf8))
                }
            }
        case (.POST, "/report"):
            if let batch = try? JSONDecoder().decode(PlayerTrace.Batch.self, from: Data(body)) {
                state.add(batch)
                respond(context, head, .noContent, "text/plain", [])
            } else {
                respond(context, head, .badRequest, "text/plain", Array("unreadable batch\n".utf8))
            }
        default:
            respond(context, head, .notFound, "text/plain", Array("not found\n".utf8))
        }
    }

    private func respond(
        _ context: ChannelHandlerContext,
        _ request: HTTPRequestHead,
        _ status: HTTPResponseStatus,
        _ type: String,
        _ bytes: [UInt8]
    ) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: "\(bytes.count)")
        headers.add(name: "Cache-Control", value: "no-store")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))),
            promise: nil
        )
        if !bytes.isEmpty { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
