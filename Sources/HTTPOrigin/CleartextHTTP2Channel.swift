import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOTLS

/// RFC 9113 §3.3/§3.4: h2c "with prior knowledge" and HTTP/1.1 on one plaintext port, told apart by the client
/// connection preface. (Hummingbird's `plaintextHTTP2()` speaks HTTP/2 only, which browsers never use without TLS.)
struct CleartextHTTP2Channel: ServerChildChannel {
    /// The protocol the first bytes chose.
    enum Negotiated: Sendable {
        case http1(HTTP1Channel.Value)
        case http2(HTTP2Channel.Value)
    }

    /// The connection and the future of its protocol.
    struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        let channel: any Channel
    }

    private let http1: HTTP1Channel
    private let http2: HTTP2Channel

    /// `configuration` applies to HTTP/1.1 connections and to every HTTP/2 stream.
    init(responder: @escaping HTTPChannelHandler.Responder, configuration: HTTP1Channel.Configuration = .init()) {
        http1 = HTTP1Channel(responder: responder, configuration: configuration)
        http2 = HTTP2Channel(responder: responder, configuration: .init(streamConfiguration: configuration))
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let http1 = self.http1
        let http2 = self.http2
        return channel.eventLoop.makeCompletedFuture {
            // The sniffer reports its verdict as an ALPN result, so NIO's negotiation handler does the pipeline swap.
            let negotiation = NIOTypedApplicationProtocolNegotiationHandler<Negotiated> { result in
                if case .negotiated("h2") = result {
                    return http2.setup(channel: channel, logger: logger).map { .http2($0) }
                }
                return http1.setup(channel: channel, logger: logger).map { .http1($0) }
            }
            try channel.pipeline.syncOperations.addHandler(HTTP2PrefaceSniffer())
            try channel.pipeline.syncOperations.addHandler(negotiation)
            return Value(negotiated: negotiation.protocolNegotiationResult, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.negotiated.get() {
            case .http1(let connection): await http1.handle(value: connection, logger: logger)
            case .http2(let connection): await http2.handle(value: connection, logger: logger)
            }
        } catch {
            logger.debug("connection closed before its protocol was known", metadata: ["error": "\(error)"])
        }
    }
}

/// Reads just enough of a new connection to tell the HTTP/2 preface `PRI * HTTP/2.0␍␊␍␊SM␍␊␍␊` from an HTTP/1 request
/// line, reports `h2` or a fallback as a TLS handshake event, passes the bytes on and leaves the pipeline.
final class HTTP2PrefaceSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// RFC 9113 §3.4.
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    private var pending: ByteBuffer?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if pending == nil {
            pending = incoming
        } else {
            pending!.writeBuffer(&incoming)
        }
        let seen = pending!.readableBytesView
        let n = min(seen.count, Self.preface.count)
        let matches = seen.prefix(n).elementsEqual(Self.preface.prefix(n))
        // Still a prefix of the preface: wait for more bytes (an HTTP/1 request differs by the second byte at most).
        if matches && n < Self.preface.count { return }
        let bytes = pending!
        pending = nil
        context.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: matches ? "h2" : nil))
        context.fireChannelRead(wrapInboundOut(bytes))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Still sniffing means no request has started: on graceful shutdown nobody else would close this connection.
        if event is ChannelShouldQuiesceEvent {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
