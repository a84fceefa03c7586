import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Writes a fast-path answer's pre-encoded HTTP/1.1 bytes (`EncodedResponseHead` and the shared body) straight below
/// NIO's HTTP/1.1 encoder, so neither HTTPTypes-to-NIO conversion nor field encoding runs per request.
///
/// Sits between the HTTP/1.1 codec and Hummingbird's connection-state handler. The fast path hands it the bytes,
/// then writes `.end` through the state handler as usual (keep-alive, close and idle time-out see every response);
/// the `.end` carrying bytes is replaced here by those bytes, every other part passes through.
final class PreEncodedResponseWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The HTTP/1.1 encoder's context: writes from it go to the socket side of the encoder.
    private let encoder: ChannelHandlerContext
    /// The bytes of the response whose `.end` comes next.
    private var pending: (head: ByteBuffer, body: ByteBuffer)?

    init(encoder: ChannelHandlerContext) { self.encoder = encoder }

    /// Makes the next `.end` written through this handler write `head` and `body` instead.
    func prepare(head: ByteBuffer, body: ByteBuffer) { pending = (head, body) }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data), let bytes = pending else {
            context.write(data, promise: promise)
            return
        }
        pending = nil
        if bytes.body.readableBytes == 0 {
            encoder.write(NIOAny(IOData.byteBuffer(bytes.head)), promise: promise)
        } else {
            encoder.write(NIOAny(IOData.byteBuffer(bytes.head)), promise: nil)
            encoder.write(NIOAny(IOData.byteBuffer(bytes.body)), promise: promise)
        }
    }
}
