import Logging
import NIOCore
import NIOPosix
import Synchronization
import WebRTCWire

/// Settings of the shared WebRTC UDP port.
public struct WebRTCTransportConfiguration: Sendable {
    /// UDP port every session shares (`--webrtc-port`); 0 lets the OS pick one (tests).
    public var port: Int = 8189
    /// Addresses to bind and to announce as host candidates; concrete addresses, not wildcards.
    public var hosts: [String] = ["127.0.0.1"]
    /// End a session when no authenticated STUN, DTLS or media arrived for this long (RFC 7675 consent).
    public var consentTimeout: Duration = .seconds(10)
    /// How often session timers run (DTLS retransmission, consent, check pacing).
    public var tickInterval: Duration = .milliseconds(20)
    /// Controlling sessions resend unanswered checks this often.
    public var checkInterval: Duration = .milliseconds(100)
    /// Controlling sessions refresh consent this often once connected.
    public var consentInterval: Duration = .seconds(2)
    /// Events buffered per session; when the owner falls behind the oldest are dropped (NACK recovers them).
    public var eventBufferLimit: Int = 4096
    /// Kernel receive buffer per socket: a keyframe burst must not overflow it.
    public var receiveBufferBytes: Int = 4 << 20

    public init() {}
}

/// One UDP port shared by every WebRTC session (RFC 8834 §4.4): ICE-lite answers, DTLS, SRTP.
///
/// Start it once, then open a session per WHIP offer (or per publish) and read its events.
public final class WebRTCTransportService: Sendable {
    public let configuration: WebRTCTransportConfiguration
    /// Our DTLS certificate; its fingerprint goes into every answer.
    public let certificate: DTLSCertificate
    private let router: TransportRouter
    private let bound = Mutex<Bound?>(nil)

    /// Sockets and the timer that exist between `start()` and `shutdown()`.
    private struct Bound: Sendable {
        var channels: [any Channel]
        var candidates: [TransportAddress]
        var timer: RepeatedTask
    }

    public init(
        configuration: WebRTCTransportConfiguration = .init(),
        certificate: DTLSCertificate,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "sluice.webrtc")
    ) {
        self.configuration = configuration
        self.certificate = certificate
        let timing = TransportSession.Timing(
            consentTimeout: configuration.consentTimeout,
            checkInterval: configuration.checkInterval,
            consentInterval: configuration.consentInterval
        )
        // Every socket and session lives on one loop, so routing needs no locks.
        self.router = TransportRouter(
            eventLoop: eventLoopGroup.next(),
            certificate: certificate,
            timing: timing,
            eventBufferLimit: configuration.eventBufferLimit,
            logger: logger
        )
    }

    /// Host candidates we are bound to (address and the actual port); empty before `start()`.
    public var candidates: [TransportAddress] { bound.withLock { $0?.candidates ?? [] } }

    /// Binds one socket per configured host on the same port and starts the session timer.
    @discardableResult
    public func start() async throws(WebRTCTransportError) -> [TransportAddress] {
        if let existing = bound.withLock({ $0?.candidates }) { return existing }
        let router = self.router
        var channels: [any Channel] = []
        var port = configuration.port
        for (index, host) in configuration.hosts.enumerated() {
            // No SO_REUSEADDR: on Linux it lets a second gateway bind the same UDP port and steal its packets.
            let bootstrap = DatagramBootstrap(group: router.eventLoop)
                .channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(configuration.receiveBufferBytes))
                .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 4096))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(UDPDatagramHandler(router: router, index: index))
                    }
                }
            do {
                let channel = try await bootstrap.bind(host: host, port: port).get()
                if port == 0 { port = channel.localAddress?.port ?? 0 }
                channels.append(channel)
            } catch {
                for channel in channels { try? await channel.close() }
                throw .socket("bind \(host):\(port): \(error)")
            }
        }
        let candidates = channels.compactMap { $0.localAddress.flatMap(TransportAddress.init) }
        let tick = TimeAmount(configuration.tickInterval)
        let boundChannels = channels
        let timer = try? await router.eventLoop.submit {
            router.channels = boundChannels
            return router.eventLoop.scheduleRepeatedTask(initialDelay: tick, delay: tick) { _ in router.tick() }
        }.get()
        guard let timer else { throw .socket("event loop shut down") }
        bound.withLock { $0 = Bound(channels: channels, candidates: candidates, timer: timer) }
        router.logger.info("WebRTC transport listening", metadata: ["candidates": "\(candidates)"])
        return candidates
    }

    /// Registers a session for one offer/answer: it answers checks for `parameters.local.ufrag` from now on.
    public func openSession(
        _ parameters: WebRTCSessionParameters
    ) async throws(WebRTCTransportError)
        -> WebRTCSession
    {
        let router = self.router
        let opened: Result<(id: UInt64, events: AsyncStream<WebRTCSessionEvent>), WebRTCTransportError>
        do {
            opened = try await router.eventLoop.submit {
                do throws(WebRTCTransportError) { return .success(try router.open(parameters)) } catch {
                    return .failure(error)
                }
            }.get()
        } catch {
            throw .socket("event loop shut down")
        }
        let (id, events) = try opened.get()
        return WebRTCSession(id: id, events: events, router: router)
    }

    /// Live sessions and datagrams nobody claimed, for metrics.
    public func counters() async -> (sessions: Int, unroutedDatagrams: Int) {
        let router = self.router
        return (try? await router.eventLoop.submit { (router.sessionCount, router.unroutedDatagrams) }.get()) ?? (0, 0)
    }

    /// Ends every session (`.closed(nil)`), stops the timer and closes the sockets.
    public func shutdown() async {
        guard
            let current = bound.withLock({ state -> Bound? in
                defer { state = nil }
                return state
            })
        else { return }
        current.timer.cancel()
        let router = self.router
        try? await router.eventLoop.submit { router.closeAll() }.get()
        for channel in current.channels { try? await channel.close() }
    }

    /// Service-lifecycle shape: starts, runs until the task is cancelled, then shuts down.
    public func run() async throws {
        try await start()
        let channels = bound.withLock { $0?.channels ?? [] }
        await withTaskCancellationHandler {
            for channel in channels { try? await channel.closeFuture.get() }
        } onCancel: {
            for channel in channels { channel.close(promise: nil) }
        }
        await shutdown()
    }
}
