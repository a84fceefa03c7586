import Logging
import NIOCore
import WebRTCWire

/// Hands every datagram of one bound socket to the router, which runs on the same event loop.
final class UDPDatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let router: TransportRouter
    private let index: Int
    /// Peers rarely change address, so remember the last few conversions.
    private var addresses: [SocketAddress: TransportAddress] = [:]

    init(router: TransportRouter, index: Int) {
        self.router = router
        self.index = index
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = Self.unwrapInboundIn(data)
        let source: TransportAddress
        if let known = addresses[envelope.remoteAddress] {
            source = known
        } else {
            guard let converted = TransportAddress(envelope.remoteAddress) else { return }
            if addresses.count > 1024 { addresses.removeAll() }
            addresses[envelope.remoteAddress] = converted
            source = converted
        }
        router.receive(Array(buffer: envelope.data), from: source, via: index)
    }

    /// ICMP errors surface here for unconnected UDP; one unreachable peer must not close the shared port.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        router.logger.debug("UDP socket error", metadata: ["error": "\(error)"])
    }
}
