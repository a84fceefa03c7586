import NIOCore
import RedisWire

/// One command handed to the connection's pipeline: its bytes and where its reply goes.
struct RedisRequest: Sendable {
    /// The command to write.
    var command: RedisCommand
    /// How long its reply may take once written.
    var timeout: Duration
    /// Completed once with the reply or a `RedisClientError`.
    var promise: EventLoopPromise<RESPValue>
}

/// Writes commands as they come and answers them with replies in order (RESP2: a server replies to pipelined
/// commands in the order it received them; https://redis.io/docs/latest/develop/use/pipelining/).
///
/// Replies are matched by position only, so anything that breaks the order — a timeout, bytes that are not RESP2,
/// a reply nobody asked for — fails every pending command and closes the connection.
final class RESPReplyHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = RedisRequest
    typealias OutboundOut = ByteBuffer

    /// A written command waiting for its reply.
    private struct Pending {
        var request: RedisRequest
        var timeout: Scheduled<Void>?
    }

    private let endpoint: String
    private var parser: RESPParser
    private var pending = CircularBuffer<Pending>()

    /// A handler for the connection to `endpoint` (named in errors).
    init(endpoint: String, limits: RESPParser.Limits) {
        self.endpoint = endpoint
        self.parser = RESPParser(limits: limits)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        guard context.channel.isActive else {
            let error = RedisClientError.connectionClosed(
                endpoint: endpoint,
                reason: "closed before \(request.command)"
            )
            request.promise.fail(error)
            promise?.fail(error)
            return
        }
        let loopBound = NIOLoopBound((context, self), eventLoop: context.eventLoop)
        let command = request.command.description
        let endpoint = endpoint
        let timeout = context.eventLoop.scheduleTask(in: TimeAmount(request.timeout)) {
            let (context, handler) = loopBound.value
            handler.failAll(
                first: .timedOut(command: command, endpoint: endpoint, after: request.timeout),
                rest: .connectionClosed(endpoint: endpoint, reason: "an earlier command (\(command)) timed out")
            )
            context.close(promise: nil)
        }
        pending.append(Pending(request: request, timeout: timeout))
        let bytes = request.command.encoded()
        var buffer = context.channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        context.writeAndFlush(wrapOutboundOut(buffer), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        parser.append(unwrapInboundIn(data).readableBytesView)
        do {
            while let reply = try parser.next() {
                guard let next = pending.popFirst() else {
                    failAll(first: .connectionClosed(endpoint: endpoint, reason: "reply \(reply) to no command"))
                    context.close(promise: nil)
                    return
                }
                next.timeout?.cancel()
                next.request.promise.succeed(reply)
            }
        } catch {
            failAll(first: .protocolViolation(endpoint: endpoint, error))
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(first: .connectionClosed(endpoint: endpoint, reason: "closed with the reply pending"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failAll(first: .connectionClosed(endpoint: endpoint, reason: "\(error)"))
        context.close(promise: nil)
    }

    /// Fails the oldest pending command with `first` and every later one with `rest` (default: `first`).
    private func failAll(first: RedisClientError, rest: RedisClientError? = nil) {
        var error = first
        while let next = pending.popFirst() {
            next.timeout?.cancel()
            next.request.promise.fail(error)
            error = rest ?? first
        }
    }
}
