import Logging
import ServiceLifecycle
import WHEPEgress
import WHIPIngest
import WebRTCTransport
import WebRTCWire

/// The shared WebRTC UDP port with its WHIP and WHEP sessions as one Service: bound before POSTs succeed, closed on
/// shutdown.
struct WHIPGatewayService: Service {
    let whip: WHIPIngestService
    /// WHEP viewers ride the same port; they end with it.
    var whep: WHEPEgressService? = nil
    let logger: Logger

    func run() async throws {
        try await whip.transport.start()
        // What answers announce: the bound candidates, then webrtc.additional_hosts.
        logger.info("WHIP ingest ready", metadata: ["candidates": "\(whip.candidates.map(\.description))"])
        // Until graceful shutdown (or cancellation): WHIP sessions end first, then the sockets close.
        try? await gracefulShutdown()
        whip.closeAll()
        whep?.closeAll()
        await whip.transport.shutdown()
    }
}
