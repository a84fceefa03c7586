import Recorder
import ServiceLifecycle

/// Runs the recorder; listed before the packager, it stops after it, so the ENDLIST of every stream (the packager's
/// graceful shutdown) reaches the recordings as VOD.
struct RecorderService: Service {
    let recorder: Recorder

    func run() async throws {
        await withGracefulShutdownHandler {
            await recorder.run()
        } onGracefulShutdown: {
            recorder.stop()
        }
    }
}
