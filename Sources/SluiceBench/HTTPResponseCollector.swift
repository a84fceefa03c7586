import MediaCore
import NIOCore
import NIOHTTP1

/// One GET handed to the connection's pipeline: the request head and where its response goes.
struct HTTPFetchRequest: Sendable {
    /// The request head (GET, path, Host, keep-alive).
    var head: HTTPRequestHead
    /// The URL, for error context.
    var url: String
    /// Fails the request with `timedOut` if no complete response arrives within this span.
    var timeout: Duration
    /// Count the body but keep none of it (load generators).
    var discardBody: Bool
    /// Completed once with the response or an error.
    var promise: EventLoopPromise<HTTPFetchResult>
}

/// Writes one request at a time and gathers its response parts (RFC 9112 §6: one response per request, in order).
///
/// The first-byte instant is taken when the response head is decoded: the decoder runs in the same read event as
/// the bytes that carried the head, so it is the arrival of the first read holding the response.
final class HTTPResponseCollector: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPFetchRequest
    typealias OutboundOut = HTTPClientRequestPart

    /// The request in flight and what has arrived for it.
    private struct InFlight {
        var request: HTTPFetchRequest
        var sent: ContinuousClock.Instant
        var timeout: Scheduled<Void>?
        var head: HTTPResponseHead?
        var firstByte: (ContinuousClock.Instant, WallTime)?
        var body: [UInt8] = []
        var bodyCount = 0
    }

    private var inFlight: InFlight?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        guard inFlight == nil else {
            request.promise.fail(BenchError.fetcherBusy(url: request.url))
            promise?.succeed()
            return
        }
        var flight = InFlight(request: request, sent: .now)
        let loopBound = NIOLoopBound((context, self), eventLoop: context.eventLoop)
        let (seconds, attoseconds) = request.timeout.components
        flight.timeout = context.eventLoop.scheduleTask(
            in: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        ) {
            let (context, handler) = loopBound.value
            handler.fail(BenchError.timedOut(url: request.url, after: request.timeout))
            context.close(promise: nil)
        }
        inFlight = flight
        context.write(wrapOutboundOut(.head(request.head)), promise: nil)
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
            if inFlight?.request.discardBody == false { inFlight?.body.append(contentsOf: buffer.readableBytesView) }
        case .end:
            guard let flight = inFlight, let head = flight.head, let firstByte = flight.firstByte else { return }
            inFlight = nil
            flight.timeout?.cancel()
            let result = HTTPFetchResult(
                status: Int(head.status.code),
                headers: head.headers,
                body: flight.body,
                bodyCount: flight.bodyCount,
                sent: flight.sent,
                firstByte: firstByte.0,
                firstByteWall: firstByte.1,
                completed: .now,
                completedWall: WallTime.now()
            )
            // The server said it will close: let the fetcher reconnect for the next request.
            if !head.isKeepAlive { context.close(promise: nil) }
            flight.request.promise.succeed(result)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let url = inFlight?.request.url { fail(BenchError.connectionClosed(url: url)) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let url = inFlight?.request.url { fail(BenchError.requestFailed(url: url, reason: "\(error)")) }
        context.close(promise: nil)
    }

    /// Fails the request in flight, if any.
    private func fail(_ error: BenchError) {
        guard let flight = inFlight else { return }
        inFlight = nil
        flight.timeout?.cancel()
        flight.request.promise.fail(error)
    }
}
