import HTTPTypes
import HummingbirdCore
import LLHLSPackager
import Logging
import MediaCore
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import Telemetry

/// Answers the LL-HLS hot path on the channel's event loop (`LiveFastPath`); every other request passes on to
/// Hummingbird's router. Sits behind Hummingbird's connection-state handler, which so sees every request and
/// response (keep-alive, `Connection: close`, idle time-out, graceful shutdown), and serves HTTP/1.1 connections
/// and HTTP/2 streams alike: both carry the same request and response parts here.
final class LiveFastPathHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The fast-path request in progress.
    private struct Serving {
        let route: FastRoute
        let generation: UInt64
        let started: ContinuousClock.Instant
        var parked: LLHLSStream.ParkedRequest?
        var timer: Scheduled<Void>?
    }

    private let fastPath: LiveFastPath
    /// On HTTP/1.1 connections: writes answers' pre-encoded bytes (HTTP/2 streams encode their own heads).
    private let writer: PreEncodedResponseWriter?
    private var exchange = FastPathExchange()
    private var serving: Serving?
    private var generation: UInt64 = 0
    /// A read the channel asked for while requests were held (resumed once they are read again).
    private var readPending = false

    init(_ fastPath: LiveFastPath, writer: PreEncodedResponseWriter? = nil) {
        self.fastPath = fastPath
        self.writer = writer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch exchange.read(part) {
        case .forward:
            context.fireChannelRead(data)
        case .drop, .hold:
            break
        case .decide:
            guard case .head(let head) = part else { return }
            if let route = fastPath.route(head, peerIP: context.channel.remoteAddress?.ipAddress) {
                exchange.begin(.fastPath)
                serve(route, context: context)
            } else {
                exchange.begin(.router)
                context.fireChannelRead(data)
            }
        }
        settle(context)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        context.write(data, promise: promise)
        // The router's response is over: requests held behind it may go now.
        if case .end = unwrapOutboundIn(data), exchange.responder == .router {
            exchange.endResponse()
            settle(context)
        }
    }

    func read(context: ChannelHandlerContext) {
        if exchange.held.isEmpty {
            context.read()
        } else {
            readPending = true
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let s = serving {
            serving = nil
            s.timer?.cancel()
            if let parked = s.parked { s.route.stream.withdraw(parked) }
            _ = fastPath.end(s.route, status: 0, bytes: 0, parked: s.parked != nil)
        }
        context.fireChannelInactive()
    }

    private func serve(_ route: FastRoute, context: ChannelHandlerContext) {
        generation &+= 1
        if let refused = fastPath.begin(route, peer: Self.peer(context)) {
            send(refused, route: route, started: .now, published: nil, context: context)
            return
        }
        serving = Serving(route: route, generation: generation, started: .now)
        let loop = context.eventLoop
        let bound = NIOLoopBound(Delivery(handler: self, context: context), eventLoop: loop)
        let generation = self.generation
        // Parked requests are answered from the publisher's thread: one hop onto this channel's loop each.
        let parked = route.answer { shared in
            if loop.inEventLoop {
                bound.value.deliver(shared, generation)
            } else {
                loop.execute { bound.value.deliver(shared, generation) }
            }
        }
        guard let parked, serving?.generation == generation else { return }
        serving?.parked = parked
        let wait = max(.zero, parked.deadline - .now)
        let stream = route.stream
        serving?.timer = loop.scheduleTask(in: TimeAmount(wait)) { stream.expire(parked) }
    }

    /// Writes a shared answer for the request in progress, if it is still the one it was meant for.
    fileprivate func deliver(_ shared: SharedResponse, generation: UInt64, context: ChannelHandlerContext) {
        guard let s = serving, s.generation == generation else { return }
        serving = nil
        s.timer?.cancel()
        let fastPath = self.fastPath
        let reply = fastPath.dated(shared.built { fastPath.reply($0, s.route) })
        let status = shared.response.status
        let published = fastPath.end(
            s.route,
            status: status,
            bytes: reply.body.readableBytes,
            parked: s.parked != nil,
            published: shared.response.published
        )
        send(reply, route: s.route, started: s.started, published: published, context: context)
    }

    private func send(
        _ reply: FastReply,
        route: FastRoute,
        started: ContinuousClock.Instant,
        published: ContinuousClock.Instant?,
        context: ChannelHandlerContext
    ) {
        if let writer {
            writer.prepare(head: reply.encodedBytes, body: reply.body)
        } else {
            context.write(wrapOutboundOut(.head(reply.head)), promise: nil)
            if reply.body.readableBytes > 0 { context.write(wrapOutboundOut(.body(reply.body)), promise: nil) }
        }
        if let published {
            // The deliver hop ends when the bytes are handed to the socket, as the router's middleware measures it.
            let telemetry = fastPath.packager.telemetry
            let rendition = route.target.rendition ?? "index"
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.whenSuccess {
                telemetry.record(.deliver, ContinuousClock.now - published, stream: route.key, rendition: rendition)
            }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        if fastPath.logger.logLevel <= .debug {
            let ms = (ContinuousClock.now - started).milliseconds
            fastPath.logger.debug(
                "access",
                metadata: ["path": "\(route.path)", "status": "\(reply.head.status.code)", "ms": "\(ms)"]
            )
        }
        exchange.endResponse()
        settle(context)
    }

    /// Once the exchange is over, reads the held requests again, then resumes reading.
    private func settle(_ context: ChannelHandlerContext) {
        guard let held = exchange.settle() else { return }
        for part in held { channelRead(context: context, data: wrapInboundOut(part)) }
        if readPending && exchange.held.isEmpty {
            readPending = false
            context.read()
        }
    }

    /// The peer as the router's telemetry names it (`ip:port`).
    static func peer(_ context: ChannelHandlerContext) -> String? {
        guard let address = context.channel.remoteAddress else { return nil }
        return "\(address.ipAddress ?? "?"):\(address.port ?? 0)"
    }
}

/// The handler and its context, carried to the event loop by a delivery from another thread.
private struct Delivery {
    let handler: LiveFastPathHandler
    let context: ChannelHandlerContext

    func deliver(_ shared: SharedResponse, _ generation: UInt64) {
        handler.deliver(shared, generation: generation, context: context)
    }
}

/// Added where Hummingbird lets a server add handlers (before its connection-state handler); on the first request
/// it puts a `LiveFastPathHandler` after that handler and leaves.
final class LiveFastPathInstaller: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let fastPath: LiveFastPath

    init(_ fastPath: LiveFastPath) { self.fastPath = fastPath }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let pipeline = context.pipeline.syncOperations
        // HTTP/1.1 connections have NIO's encoder below: answers go out as pre-encoded bytes beneath it.
        let writer = (try? pipeline.context(handlerType: HTTPResponseEncoder.self)).map {
            PreEncodedResponseWriter(encoder: $0)
        }
        let handler = LiveFastPathHandler(fastPath, writer: writer)
        if let writer { try? pipeline.addHandler(writer, position: .after(self)) }
        do {
            let state = try pipeline.handler(type: HTTPConnectionStateHandler.self)
            try pipeline.addHandler(handler, position: .after(state))
        } catch {
            // No state handler (not Hummingbird's pipeline): right behind this one works too, without its extras.
            if let writer {
                try? pipeline.addHandler(handler, position: .after(writer))
            } else {
                try? pipeline.addHandler(handler, position: .after(self))
            }
        }
        context.fireChannelRead(data)
        pipeline.removeHandler(context: context, promise: nil)
    }
}
