import Hummingbird
import LLHLSPackager
import Logging
import NIOCore
import ServiceLifecycle

/// The HTTP origin as a Service: serves playlists and media until graceful shutdown.
public struct HTTPOriginService: Service {
    private let app: Application<RouterResponder<BasicRequestContext>>

    /// Binds `host:port` (0 picks a free port, reported through `onBound`).
    public init(
        packager: LLHLSPackager, host: String, port: Int, logger: Logger,
        onBound: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        app = Application(
            router: OriginRoutes.router(packager: packager),
            configuration: .init(address: .hostname(host, port: port), serverName: "Sluice"),
            onServerRunning: { channel in onBound(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    /// Runs until graceful shutdown; in-flight requests finish first.
    public func run() async throws {
        // `run()`, not `runService()`: the gateway's ServiceGroup owns signals and shutdown order.
        try await app.run()
    }
}
