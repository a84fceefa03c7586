import Logging
import NIOCore
import NIOPosix
import PublishAuth
import ServiceLifecycle
import StreamHub
import Synchronization
import Telemetry

/// Accepts RTMP publishers (OBS, FFmpeg) and turns each publish into a hub publication.
public struct RTMPIngestService: Service {
    private let host: String
    private let port: Int
    private let hub: StreamHub
    private let logger: Logger
    private let configuration: RTMPIngestConfiguration
    private let onBound: @Sendable (Int) -> Void
    /// Decides each publish (shared with the other ingest protocols).
    private let authorizer: PublishAuthorizer
    /// Where sessions list the tracks they do not serve.
    private let telemetry: GatewayTelemetry?
    private let state = SharedState()

    /// Creates the service; `run()` binds `host:port` (port 0 picks a free port, reported via `onBound`). Without an
    /// `authorizer`, the default rules apply: any key from loopback peers.
    public init(
        host: String,
        port: Int,
        hub: StreamHub,
        logger: Logger,
        configuration: RTMPIngestConfiguration = RTMPIngestConfiguration(),
        onBound: @escaping @Sendable (Int) -> Void = { _ in },
        authorizer: PublishAuthorizer = PublishAuthorizer(configuration: PublishAuthConfiguration()),
        telemetry: GatewayTelemetry? = nil
    ) {
        self.telemetry = telemetry
        self.host = host
        self.port = port
        self.hub = hub
        self.logger = logger
        self.configuration = configuration
        self.onBound = onBound
        self.authorizer = authorizer
    }

    /// The port actually bound, once `run()` is listening.
    public var boundPort: Int? { state.port.withLock { $0 } }

    /// The RTMPS port actually bound, once `run()` is listening (nil without `configuration.tls`).
    public var boundTLSPort: Int? { state.tlsPort.withLock { $0 } }

    /// Binds the RTMPS listener when configured; a certificate that cannot be loaded fails start-up.
    private func bindTLS(_ plain: SessionInitializer) async throws -> (any Channel)? {
        guard let tls = configuration.tls else { return nil }
        var initializer = plain
        initializer.tls = try tls.makeContext()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer(initializer.initialize)
            .bind(host: host, port: tls.port).get()
        state.tlsPort.withLock { $0 = server.localAddress?.port }
        logger.info("RTMPS ingest listening", metadata: ["address": "\(server.localAddress.map { "\($0)" } ?? "?")"])
        return server
    }

    /// Binds, serves until graceful shutdown or cancellation, then closes the listener and every session.
    public func run() async throws {
        let sessions = state.sessions
        let hub = hub
        let configuration = configuration
        let logger = logger
        var initializer = SessionInitializer(
            hub: hub,
            configuration: configuration,
            logger: logger,
            authorizer: authorizer,
            sessions: sessions,
            limiter: ConnectionLimiter(limit: configuration.maxSessionsPerIP)
        )
        initializer.telemetry = telemetry
        logger.info(
            "RTMP publish auth",
            metadata: [
                "methods": "\(authorizer.configuration.methodsSummary)",
                "anonymous": "\(authorizer.configuration.anonymousSummary)",
            ]
        )
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer(initializer.initialize)
        let server = try await bootstrap.bind(host: host, port: port).get()
        let bound = server.localAddress?.port ?? port
        state.port.withLock { $0 = bound }
        logger.info("RTMP ingest listening", metadata: ["address": "\(server.localAddress.map { "\($0)" } ?? "?")"])
        let tlsServer = try await bindTLS(initializer)
        onBound(bound)
        let stop: @Sendable () -> Void = {
            server.close(promise: nil)
            tlsServer?.close(promise: nil)
            sessions.closeAll()
        }
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await server.closeFuture.get()
            } onGracefulShutdown: {
                logger.info("RTMP ingest shutting down")
                stop()
            }
        } onCancel: {
            stop()
        }
        stop()
        await sessions.waitUntilEmpty()
    }
}

/// State shared between the service value and its running listener.
final class SharedState: Sendable {
    let port = Mutex<Int?>(nil)
    let tlsPort = Mutex<Int?>(nil)
    let sessions = SessionRegistry()
}

/// Live connections, so shutdown can close them all (ending their publications).
final class SessionRegistry: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var closed = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Tracks `channel` until it closes; a channel arriving after shutdown is closed at once.
    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let accepted = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            s.channels[id] = channel
            return true
        }
        guard accepted else {
            channel.close(promise: nil)
            return
        }
        channel.closeFuture.whenComplete { _ in
            let waiters = self.state.withLock { s -> [CheckedContinuation<Void, Never>] in
                s.channels[id] = nil
                guard s.channels.isEmpty else { return [] }
                defer { s.waiters = [] }
                return s.waiters
            }
            for w in waiters { w.resume() }
        }
    }

    /// Closes every connection and refuses new ones.
    func closeAll() {
        let channels = state.withLock { s in
            s.closed = true
            return Array(s.channels.values)
        }
        for c in channels { c.close(promise: nil) }
    }

    /// Returns once every tracked connection has closed.
    func waitUntilEmpty() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let done = state.withLock { s -> Bool in
                if s.channels.isEmpty { return true }
                s.waiters.append(c)
                return false
            }
            if done { c.resume() }
        }
    }
}
