import Logging
import MediaCore
import PublishAuth
import ServiceLifecycle
import StreamHub
import Synchronization
import Telemetry

import class Foundation.Thread

/// Accepts SRT publishers (OBS, vMix, hardware encoders, FFmpeg) on one UDP port and turns each into a hub
/// publication; `srt.port` 0 means the gateway does not run this service.
public struct SRTIngestService: Service {
    private let host: String
    private let configuration: SRTIngestConfiguration
    private let hub: StreamHub
    private let authorizer: PublishAuthorizer
    private let telemetry: GatewayTelemetry?
    private let logger: Logger
    private let onBound: @Sendable (Int) -> Void
    private let registry = SRTSessionRegistry()

    /// Creates the service; `run()` binds `host:configuration.port` (0 here is a free port, reported via
    /// `onBound`). Without an `authorizer`, the default rules apply: any key from loopback peers.
    public init(
        host: String,
        configuration: SRTIngestConfiguration,
        hub: StreamHub,
        logger: Logger,
        telemetry: GatewayTelemetry? = nil,
        authorizer: PublishAuthorizer = PublishAuthorizer(configuration: PublishAuthConfiguration()),
        onBound: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        // libsrt binds IP literals; a wildcard name means every IPv4 address.
        self.host = host == "localhost" ? "127.0.0.1" : host
        self.configuration = configuration
        self.hub = hub
        self.authorizer = authorizer
        self.telemetry = telemetry
        self.logger = logger
        self.onBound = onBound
    }

    /// Binds, serves until graceful shutdown or cancellation, then closes every session and waits for its thread.
    public func run() async throws {
        // Cleaned up only once every SRT thread has ended (below, after waitUntilIdle), failure to bind included.
        SRTSocket.startup()
        defer { SRTSocket.cleanup() }
        let registry = registry
        let session: @Sendable (SRTSocket, SRTListener.Admitted) -> Void = { [self] socket, admitted in
            let s = SRTSession(
                socket: socket,
                admitted: admitted,
                hub: hub,
                authorizer: authorizer,
                telemetry: telemetry,
                configuration: configuration,
                registry: registry,
                logger: logger
            )
            registry.threadStarted()
            let thread = Thread {
                s.run()
                registry.threadEnded()
            }
            thread.name = "srt-session"
            thread.start()
        }
        let listener = try SRTListener(
            host: host,
            configuration: configuration,
            admission: SRTAdmission(authorizer: authorizer, maxSessions: configuration.maxSessions),
            hub: hub,
            logger: logger,
            sessions: registry,
            startSession: session
        )
        let port = listener.socket.localPort
        logger.info(
            "SRT ingest listening",
            metadata: [
                "address": "\(host):\(port)", "latency_ms": "\(configuration.latency.milliseconds)",
                "encryption": "\(configuration.passphrase == nil ? "off" : "AES-\(configuration.keyLength * 8)")",
                "auth": "\(authorizer.configuration.summary)",
            ]
        )
        listener.start()
        onBound(port)
        let stop: @Sendable () -> Void = {
            listener.stop()
            registry.closeAll()
        }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await registry.waitUntilClosed()
            } onGracefulShutdown: {
                logger.info("SRT ingest shutting down")
                stop()
            }
        } onCancel: {
            stop()
        }
        await registry.waitUntilIdle()
    }
}
