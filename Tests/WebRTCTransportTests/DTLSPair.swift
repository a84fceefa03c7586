import WebRTCTransport
import WebRTCWire

/// Two in-memory DTLS endpoints wired back to back, the way the UDP path would connect them.
struct DTLSPair {
    /// Events (everything but `.send`) each side produced, in order.
    var clientEvents: [DTLSAction] = []
    var serverEvents: [DTLSAction] = []
    /// Every datagram that crossed, by direction, so tests can replay or corrupt them.
    var clientSent: [[UInt8]] = []
    var serverSent: [[UInt8]] = []

    /// Starts the client (or sends the `clientHello` it already returned) and shuttles datagrams until neither side has anything left to send.
    /// `tamper` may replace each datagram in flight with any number of datagrams (corrupt, duplicate, drop).
    mutating func handshake(
        client: inout DTLSEndpoint,
        server: inout DTLSEndpoint,
        clientHello: [DTLSAction]? = nil,
        tamper: (inout [[UInt8]]) -> Void = { _ in }
    ) {
        _ = server.start()
        var toServer = record(clientHello ?? client.start(), fromClient: true)
        var toClient: [[UInt8]] = []
        var rounds = 0
        while !(toServer.isEmpty && toClient.isEmpty), rounds < 64 {
            rounds += 1
            tamper(&toServer)
            for datagram in toServer { toClient += record(server.receive(datagram), fromClient: false) }
            toServer = []
            tamper(&toClient)
            for datagram in toClient { toServer += record(client.receive(datagram), fromClient: true) }
            toClient = []
        }
    }

    /// Splits actions into datagrams to forward and events to remember.
    mutating func record(_ actions: [DTLSAction], fromClient: Bool) -> [[UInt8]] {
        var datagrams: [[UInt8]] = []
        for action in actions {
            if case .send(let bytes) = action {
                datagrams.append(bytes)
            } else if fromClient {
                clientEvents.append(action)
            } else {
                serverEvents.append(action)
            }
        }
        if fromClient { clientSent += datagrams } else { serverSent += datagrams }
        return datagrams
    }

    /// The keying material a side announced, if it connected.
    static func keys(_ events: [DTLSAction]) -> SRTPKeyingMaterial? {
        for case .connected(let material) in events { return material }
        return nil
    }

    /// The first failure a side announced.
    static func failure(_ events: [DTLSAction]) -> WebRTCTransportError? {
        for case .failed(let error) in events { return error }
        return nil
    }
}

/// Certificates shared by the tests (EC key generation is cheap but not free).
enum TestCertificates {
    static let client = try! DTLSCertificate(commonName: "client")
    static let server = try! DTLSCertificate(commonName: "server")
    static let stranger = try! DTLSCertificate(commonName: "stranger")
}
