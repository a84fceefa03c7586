import Logging
import MediaCore
import NIOCore
import NIOEmbedded
import NIOPosix
import PublishAuth
import RTMPWire
import StreamHub
import Synchronization
import Testing

@testable import RTMPIngest

/// Limits and publish auth through the session handler: each violation closes only that connection and
/// logs why, with the stream key and the peer address.
struct RTMPIngestLimitsTests {
    /// Keeps every log line with its metadata.
    final class LogSink: Sendable {
        let lines = Mutex<[(level: Logger.Level, message: String, metadata: Logger.Metadata)]>([])
        var logger: Logger {
            Logger(label: "limits") { _ in Handler(sink: self) }
        }
        struct Handler: LogHandler {
            let sink: LogSink
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .debug
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) {
                sink.lines.withLock { $0.append((event.level, "\(event.message)", event.metadata ?? [:])) }
            }
        }
        func warnings() -> [(message: String, metadata: Logger.Metadata)] {
            lines.withLock { $0.filter { $0.level >= .warning }.map { ($0.message, $0.metadata) } }
        }
    }

    /// Connects over real TCP and sends C0+C1 (RTMP 1.0 §5.2): accepted when the server answers, refused when it
    /// closes first; waits for whichever happens, no fixed delay.
    static func handshake(port: Int) async throws -> (channel: any Channel, accepted: Bool) {
        let answered = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Bool.self)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(FirstAnswer(promise: answered))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        // A refused connection may be closed before C0+C1 are written: the write fails, the answer says refused.
        try? await channel.writeAndFlush(channel.allocator.buffer(bytes: [3] + [UInt8](repeating: 1, count: 1536)))
        return (channel, try await answered.futureResult.get())
    }

    /// Completes with true on the first inbound byte, false if the connection closes before one.
    final class FirstAnswer: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let promise: EventLoopPromise<Bool>
        var done = false
        init(promise: EventLoopPromise<Bool>) { self.promise = promise }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { complete(true) }
        func channelInactive(context: ChannelHandlerContext) {
            complete(false)
            context.fireChannelInactive()
        }
        private func complete(_ accepted: Bool) {
            guard !done else { return }
            done = true
            promise.succeed(accepted)
        }
    }

    /// A publisher on an EmbeddedChannel with its own configuration.
    final class Client {
        let channel = EmbeddedChannel()
        var encoder = ChunkEncoder()
        var decoder = ChunkDecoder()

        init(
            hub: StreamHub,
            configuration: RTMPIngestConfiguration,
            logger: Logger,
            ip: String = "127.0.0.1",
            auth: PublishAuthConfiguration = PublishAuthConfiguration()
        ) throws {
            try channel.pipeline.syncOperations.addHandler(
                RTMPSessionHandler(
                    hub: hub,
                    configuration: configuration,
                    logger: logger,
                    authorizer: PublishAuthorizer(configuration: auth)
                )
            )
            try channel.connect(to: SocketAddress(ipAddress: ip, port: 40_000)).wait()
            try send([3] + [UInt8](repeating: 1, count: 1536))
            while try channel.readOutbound(as: ByteBuffer.self) != nil {}
            try send([UInt8](repeating: 2, count: 1536))
        }

        func send(_ bytes: [UInt8]) throws { try channel.writeInbound(channel.allocator.buffer(bytes: bytes)) }

        func command(
            _ name: String,
            _ tx: Double,
            _ object: AMF0Value = .null,
            _ args: AMF0Value...,
            streamID: UInt32 = 0
        )
            throws
        {
            try send(
                encoder.encode(
                    RTMPMessage.command([.string(name), .number(tx), object] + args).raw(messageStreamID: streamID)
                )
            )
        }

        func statusCodes() throws -> [String] {
            var out: [String] = []
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
                decoder.feed(Array(buffer.readableBytesView))
                while let raw = try decoder.nextMessage() {
                    if case .command(let values) = try RTMPMessage(raw: raw), let c = try? RTMPCommand(values: values) {
                        out.append(c.statusCode ?? c.name)
                    }
                }
            }
            return out
        }

        func connectAndPublish(_ name: String) throws {
            try command("connect", 1, .object([AMF0Property("app", .string("live"))]))
            try command("createStream", 2)
            try command("publish", 3, .null, .string(name), .string("live"), streamID: 1)
        }
    }

    @Test func publishWithoutAListedKeyGetsAnErrorStatusAndIsClosed() throws {
        let hub = StreamHub()
        let sink = LogSink()
        var auth = PublishAuthConfiguration()
        auth.keys = ["cam?s3cret"]
        let client = try Client(hub: hub, configuration: RTMPIngestConfiguration(), logger: sink.logger, auth: auth)
        try client.connectAndPublish("cam?wrong")
        #expect(try client.statusCodes().last == "NetStream.Publish.Unauthorized")
        #expect(!client.channel.isActive)
        #expect(hub.liveKeys.isEmpty)
        let refused = try #require(sink.warnings().first { $0.message == "RTMP publish refused" })
        #expect(refused.metadata["stream"] == "cam")
        #expect(refused.metadata["peer"] == "127.0.0.1:40000")
        #expect("\(refused.metadata["reason"] ?? "")".contains("not in the key list"))
    }

    @Test func publishWithAListedKeyStartsUnderTheNameWithoutItsSecret() throws {
        let hub = StreamHub()
        var auth = PublishAuthConfiguration()
        auth.keys = ["cam?s3cret"]
        let client = try Client(
            hub: hub,
            configuration: RTMPIngestConfiguration(),
            logger: LogSink().logger,
            auth: auth
        )
        try client.connectAndPublish("cam?s3cret")
        #expect(try client.statusCodes().last == "NetStream.Publish.Start")
        #expect(hub.liveKeys.map(\.rawValue) == ["cam"])
    }

    @Test func messageAboveTheSizeLimitClosesWithItsReason() throws {
        let sink = LogSink()
        var c = RTMPIngestConfiguration()
        c.maxMessageSize = 65_536
        let hub = StreamHub()
        let client = try Client(hub: hub, configuration: c, logger: sink.logger)
        try client.connectAndPublish("big")
        _ = try client.statusCodes()
        // A video message header declaring 65537 bytes.
        try client.send([0x06, 0, 0, 0, 0x01, 0x00, 0x01, 9, 1, 0, 0, 0])
        #expect(!client.channel.isActive)
        #expect(hub.liveKeys.isEmpty)
        let closed = try #require(sink.warnings().first)
        #expect("\(closed.metadata["reason"] ?? "")".contains("messageTooLarge(size: 65537, limit: 65536)"))
        #expect(closed.metadata["stream"] == "big")
        #expect(closed.metadata["peer"] == "127.0.0.1:40000")
    }

    @Test func chunkSizeAboveTheLimitClosesTheConnection() throws {
        let sink = LogSink()
        var c = RTMPIngestConfiguration()
        c.maxChunkSize = 4096
        let client = try Client(hub: StreamHub(), configuration: c, logger: sink.logger)
        try client.send(client.encoder.encode(RTMPMessage.setChunkSize(4097).raw()))
        #expect(!client.channel.isActive)
        let reason = "\(sink.warnings().first?.metadata["reason"] ?? "")"
        #expect(reason.contains("chunkSizeOutOfRange(size: 4097, limit: 4096)"))
    }

    @Test func amf0NestedDeeperThanTheLimitClosesTheConnection() throws {
        let sink = LogSink()
        var c = RTMPIngestConfiguration()
        c.maxAMF0Depth = 4
        let client = try Client(hub: StreamHub(), configuration: c, logger: sink.logger)
        var nested = AMF0Value.null
        for _ in 0..<6 { nested = .object([AMF0Property("a", nested)]) }
        try client.command("connect", 1, nested)
        #expect(!client.channel.isActive)
        let reason = "\(sink.warnings().first?.metadata["reason"] ?? "")"
        #expect(reason.contains("amf0TooDeep(limit: 4)"))
    }

    @Test func tooManyLiveStreamsRefusesOnlyTheNewPublisher() throws {
        let hub = StreamHub(maxStreams: 1)
        let first = try Client(hub: hub, configuration: RTMPIngestConfiguration(), logger: LogSink().logger)
        try first.connectAndPublish("one")
        let second = try Client(hub: hub, configuration: RTMPIngestConfiguration(), logger: LogSink().logger)
        try second.connectAndPublish("two")
        #expect(try second.statusCodes().last == "NetStream.Publish.BadName")
        #expect(!second.channel.isActive)
        #expect(first.channel.isActive)
        #expect(hub.liveKeys.map(\.rawValue) == ["one"])
    }

    /// Real sockets: the third connection from one IP is closed at once, the first two stay up.
    @Test func sessionsPerIPAboveTheLimitAreRefused() async throws {
        var c = RTMPIngestConfiguration()
        c.maxSessionsPerIP = 2
        let sink = LogSink()
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let service = RTMPIngestService(
            host: "127.0.0.1",
            port: 0,
            hub: StreamHub(),
            logger: sink.logger,
            configuration: c,
            onBound: { portSink.yield($0) }
        )
        let task = Task { try await service.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        var open: [(channel: any Channel, accepted: Bool)] = []
        for _ in 0..<3 { open.append(try await Self.handshake(port: port)) }
        // Accepted means the server answered C0+C1; refused means it closed without a byte.
        #expect(open.map(\.accepted) == [true, true, false])
        #expect(open.map(\.channel.isActive) == [true, true, false])
        let refused = try #require(sink.warnings().first { $0.message == "RTMP connection refused" })
        #expect("\(refused.metadata["reason"] ?? "")".contains("too many sessions from 127.0.0.1"))
        // A slot freed is a slot available again, once the server has seen the close.
        try await open[0].channel.close()
        var again = try await Self.handshake(port: port)
        for _ in 0..<100 where !again.accepted {
            again = try await Self.handshake(port: port)
        }
        #expect(again.accepted && again.channel.isActive)
        let channels = open.map(\.channel) + [again.channel]
        for ch in channels { try? await ch.close() }
        task.cancel()
        try await task.value
    }
}
