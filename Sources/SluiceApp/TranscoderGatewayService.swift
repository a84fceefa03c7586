import ServiceLifecycle
import Transcoder

/// Runs the ABR ladder for every published stream until shutdown.
struct TranscoderGatewayService: Service {
    let transcoder: TranscoderService

    func run() async throws {
        // Cancellation ends every ladder; their rung publications end with them.
        await cancelWhenGracefulShutdown {
            await transcoder.run()
        }
    }
}
