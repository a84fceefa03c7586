import Hummingbird
import HummingbirdCore
import LLHLSPackager
import Logging
import NIOCore
import ServiceLifecycle

/// The HTTP origin as a Service: serves playlists and media until graceful shutdown.
public struct HTTPOriginService: Service {
    private let app: Application<RouterResponder<OriginRequestContext>>
    /// A TLS file that could not be read: reported when the service runs, so start-up fails with it.
    private let setupError: (any Error)?
    /// The LL-HLS hot path in front of the router (nil when `HTTPOriginOptions.fastPath` is off).
    let fastPath: LiveFastPath?

    /// Binds `host:port` (0 picks a free port, reported through `onBound`).
    public init(
        packager: LLHLSPackager,
        host: String,
        port: Int,
        logger: Logger,
        options: HTTPOriginOptions = .init(),
        onBound: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        let waiting = BlockingCounter()
        let serverName = "Sluice"
        let fastPath =
            options.fastPath
            ? LiveFastPath(
                packager: packager,
                access: options.access,
                waiting: waiting,
                logger: logger,
                serverName: serverName
            ) : nil
        self.fastPath = fastPath
        var server = HTTPServerBuilder.http1()
        do {
            server = try options.serverBuilder(fastPath: fastPath)
            setupError = nil
        } catch {
            setupError = error
        }
        app = Application(
            router: OriginRoutes.router(packager: packager, options: options, waiting: waiting),
            server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: serverName),
            onServerRunning: { channel in onBound(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }

    /// Runs until graceful shutdown; in-flight requests finish first.
    public func run() async throws {
        // `run()`, not `runService()`: the gateway's ServiceGroup owns signals and shutdown order.
        if let setupError { throw setupError }
        try await app.run()
    }
}
