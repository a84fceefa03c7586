import Hummingbird
import NIOCore

/// The origin's request context: Hummingbird's core storage plus the peer's address (WHIP's loopback rule needs it).
public struct OriginRequestContext: RequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The TCP peer; nil in router tests. Not `RemoteAddressRequestContext`, so viewer counting keeps its own rule.
    public let peerAddress: SocketAddress?

    /// Takes the peer from the connection (an HTTP/2 stream channel reports its parent connection's peer).
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress
    }

    /// The peer's IP address without its port, nil when unknown.
    public var peerIP: String? { peerAddress?.ipAddress }
}
