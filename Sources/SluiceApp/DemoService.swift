import Logging
import MediaCore
import ServiceLifecycle
import StreamHub

/// Publishes the built-in test pattern with tone (`--demo`) until shutdown.
struct DemoService: Service {
    let hub: StreamHub
    let key: StreamKey
    let logger: Logger

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                try await runDemoStream(hub: hub, key: key, logger: logger)
            }
        } catch is CancellationError {
            return
        } catch {
            // The demo is a convenience: its failure must not take the gateway down.
            logger.error("demo stream stopped", metadata: ["stream": "\(key)", "error": "\(error)"])
        }
    }
}
