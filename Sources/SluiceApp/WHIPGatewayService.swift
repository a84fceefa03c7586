import Logging
import ServiceLifecycle
import WHIPIngest
import WebRTCTransport
import WebRTCWire

/// The shared WebRTC UDP port and WHIP sessions as one Service: bound before POSTs succeed, closed on shutdown.
struct WHIPGatewayService: Service {
    let whip: WHIPIngestService
    let logger: Logger

    func run() async throws {
        let candidates = try await whip.transport.start()
        logger.info("WHIP ingest ready", metadata: ["candidates": "\(candidates.map(\.description))"])
        // Until graceful shutdown (or cancellation): WHIP sessions end first, then the sockets close.
        try? await gracefulShutdown()
        whip.closeAll()
        await whip.transport.shutdown()
    }
}
