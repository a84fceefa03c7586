import MediaCore
import NIOCore
import NIOHTTP1

/// One request handed to the connection's pipeline: what to write and where its response goes.
struct HTTPExchange: Sendable {
    /// The request before its promise exists.
    struct Template: Sendable {
        /// The request head (method, target, Host, …).
        var head: HTTPRequestHead
        /// The body, if any.
        var body: [UInt8]?
        /// The URL, for error context.
        var url: String
        /// The exchange's whole limit, as the timeout error names it.
        var limit: Duration
        /// What is left of `limit` once connected: the response must be complete within it.
        var remaining: Duration
        /// Count the body but keep none of it (load generators).
        var discardBody: Bool
    }

    var template: Template
    /// Completed once with the response or an error.
    var promise: EventLoopPromise<HTTPClientResponse>
}

/// Writes one request at a time and gathers its response parts (RFC 9112 §6: one response per request, in order).
///
/// The first-byte instant is taken when the response head is decoded: the decoder runs in the same read event as
/// the bytes that carried the head, so it is the arrival of the first read holding the response.
final class HTTPResponseCollector: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPExchange
    typealias OutboundOut = HTTPClientRequestPart

    /// The exchange in flight and what has arrived for it.
    private struct InFlight {
        var exchange: HTTPExchange
        var sent: ContinuousClock.Instant
        var timeout: Scheduled<Void>?
        var head: HTTPResponseHead?
        var firstByte: (ContinuousClock.Instant, WallTime)?
        var body: [UInt8] = []
        var bodyCount = 0
    }

    private var inFlight: InFlight?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let exchange = unwrapOutboundIn(data)
        let request = exchange.template
        guard inFlight == nil else {
            exchange.promise.fail(HTTPClientError.busy(url: request.url))
            promise?.succeed()
            return
        }
        var flight = InFlight(exchange: exchange, sent: .now)
        let loopBound = NIOLoopBound((context, self), eventLoop: context.eventLoop)
        flight.timeout = context.eventLoop.scheduleTask(in: TimeAmount(request.remaining)) {
            let (context, handler) = loopBound.value
            handler.fail(HTTPClientError.timedOut(url: request.url, after: request.limit))
            context.close(promise: nil)
        }
        inFlight = flight
        context.write(wrapOutboundOut(.head(request.head)), promise: nil)
        if let body = request.body, !body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard inFlight != nil else { return }  // A stray response after a timeout: the channel is closing.
        switch unwrapInboundIn(data) {
        case .head(let head):
            inFlight?.head = head
            inFlight?.firstByte = (.now, WallTime.now())
        case .body(let buffer):
            inFlight?.bodyCount += buffer.readableBytes
            if inFlight?.exchange.template.discardBody == false {
                inFlight?.body.append(contentsOf: buffer.readableBytesView)
            }
        case .end:
            guard let flight = inFlight, let head = flight.head, let firstByte = flight.firstByte else { return }
            inFlight = nil
            flight.timeout?.cancel()
            var headers: [String: String] = [:]
            for (name, value) in head.headers where headers[name.lowercased()] == nil {
                headers[name.lowercased()] = value
            }
            let result = HTTPClientResponse(
                status: Int(head.status.code),
                headers: headers,
                body: flight.body,
                bodyCount: flight.bodyCount,
                sent: flight.sent,
                firstByte: firstByte,
                completed: (.now, WallTime.now())
            )
            // The server said it will close: let the connection reconnect for the next request.
            if !head.isKeepAlive { context.close(promise: nil) }
            flight.exchange.promise.succeed(result)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let url = inFlight?.exchange.template.url { fail(HTTPClientError.connectionClosed(url: url)) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let url = inFlight?.exchange.template.url { fail(HTTPClientError.failed(url: url, reason: "\(error)")) }
        context.close(promise: nil)
    }

    /// Fails the exchange in flight, if any.
    private func fail(_ error: HTTPClientError) {
        guard let flight = inFlight else { return }
        inFlight = nil
        flight.timeout?.cancel()
        flight.exchange.promise.fail(error)
    }
}
