import WebRTCTransport

/// A started WebRTC transport on a free loopback port, for tests that open real sessions.
enum LoopbackTransport {
    static func started() async throws -> WebRTCTransportService {
        var configuration = WebRTCTransportConfiguration()
        configuration.port = 0
        let transport = WebRTCTransportService(configuration: configuration, certificate: try DTLSCertificate())
        try await transport.start()
        return transport
    }
}
