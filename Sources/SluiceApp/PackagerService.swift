import LLHLSPackager
import ServiceLifecycle

/// Runs the packager; on graceful shutdown every playlist gets EXT-X-ENDLIST before the origin stops.
struct PackagerService: Service {
    let packager: LLHLSPackager

    func run() async throws {
        await withGracefulShutdownHandler {
            await packager.run()
        } onGracefulShutdown: {
            packager.endAll()
        }
    }
}
