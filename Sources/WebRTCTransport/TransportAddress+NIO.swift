import NIOCore
import WebRTCWire

/// Converting between NIO's socket addresses and the wire module's `TransportAddress`.
extension TransportAddress {
    /// The IP and port of a NIO IPv4/IPv6 address; nil for Unix sockets.
    init?(_ address: SocketAddress) {
        guard let text = address.ipAddress, let port = address.port, let ip = Self.parseIP(text) else { return nil }
        self.init(ip: ip, port: UInt16(truncatingIfNeeded: port))
    }

    /// The NIO address to write to.
    func socketAddress() throws -> SocketAddress {
        try SocketAddress(ipAddress: ipText, port: Int(port))
    }
}
