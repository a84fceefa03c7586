import Logging
import MediaCore
import NIOCore
import NIOEmbedded
import RTMPWire
import StreamHub
import Testing

@testable import RTMPIngest

/// The channel handler in-process on an EmbeddedChannel, before any real socket.
struct RTMPSessionHandlerTests {
    final class Peer {
        let channel: EmbeddedChannel
        var encoder = ChunkEncoder()
        var decoder = ChunkDecoder()

        init(hub: StreamHub) throws {
            channel = EmbeddedChannel()
            try channel.pipeline.syncOperations.addHandler(
                RTMPSessionHandler(
                    hub: hub,
                    configuration: RTMPIngestConfiguration(),
                    logger: Logger(label: "embedded")
                )
            )
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1935)).wait()
        }

        func send(_ bytes: [UInt8]) throws {
            try channel.writeInbound(channel.allocator.buffer(bytes: bytes))
        }

        func send(_ message: RTMPMessage, streamID: UInt32 = 0) throws {
            try send(encoder.encode(message.raw(messageStreamID: streamID)))
        }

        /// Everything the server wrote, as messages (after the 3073-byte handshake reply).
        func replies() throws -> [RTMPMessage] {
            var out: [RTMPMessage] = []
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
                decoder.feed(Array(buffer.readableBytesView))
                while let raw = try decoder.nextMessage() { out.append(try RTMPMessage(raw: raw)) }
            }
            return out
        }

        func handshake() throws {
            try send([3] + [UInt8](repeating: 1, count: 1536))
            var reply: [UInt8] = []
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) { reply += buffer.readableBytesView }
            #expect(reply.count == 3073 && reply.first == 3)
            try send([UInt8](repeating: 2, count: 1536))
        }

        func command(
            _ name: String,
            _ tx: Double,
            _ object: AMF0Value = .null,
            _ args: AMF0Value...,
            streamID: UInt32 = 0
        ) throws {
            try send(.command([.string(name), .number(tx), object] + args), streamID: streamID)
        }
    }

    static func statusCodes(_ messages: [RTMPMessage]) -> [String] {
        messages.compactMap { m in
            guard case .command(let values) = m, let c = try? RTMPCommand(values: values) else { return nil }
            return c.statusCode ?? c.name
        }
    }

    @Test func publishesAndFeedsTheHubThroughTheHandler() throws {
        let hub = StreamHub()
        let peer = try Peer(hub: hub)
        try peer.handshake()
        try peer.command("connect", 1, .object([AMF0Property("app", .string("live"))]))
        let connect = try peer.replies()
        #expect(connect.first == .windowAcknowledgementSize(2_500_000))
        #expect(connect.contains(.setChunkSize(4096)))
        #expect(Self.statusCodes(connect) == ["NetConnection.Connect.Success"])
        // The server now writes 4096-byte chunks; our reader must follow its Set Chunk Size (it did, automatically).
        try peer.command("createStream", 2)
        try peer.command("publish", 3, .null, .string("embedded"), .string("live"), streamID: 1)
        #expect(Self.statusCodes(try peer.replies()) == ["_result", "NetStream.Publish.Start"])
        #expect(hub.liveKeys.map(\.rawValue) == ["embedded"])

        try peer.channel.close().wait()
        #expect(hub.liveKeys.isEmpty)
    }

    @Test func malformedChunkClosesTheConnectionAndEndsThePublication() async throws {
        let hub = StreamHub()
        let peer = try Peer(hub: hub)
        try peer.handshake()
        try peer.command("connect", 1, .object([AMF0Property("app", .string("live"))]))
        try peer.command("publish", 3, .null, .string("broken"), streamID: 1)
        #expect(hub.liveKeys.count == 1)
        let reader = try #require(hub.subscribe(key: StreamKey("broken")!, name: "t"))
        // A command whose AMF0 claims a string longer than the message.
        try peer.send(
            peer.encoder.encode(
                RTMPRawMessage(
                    chunkStreamID: 3,
                    timestamp: 0,
                    typeID: 20,
                    messageStreamID: 0,
                    payload: [0x02, 0xFF, 0xFF]
                )
            )
        )
        #expect(!peer.channel.isActive)
        #expect(hub.liveKeys.isEmpty)
        let event = await reader.next()
        #expect(event.map { if case .ended = $0 { true } else { false } } == true)
    }

    @Test func pingRequestGetsAPingResponse() throws {
        let peer = try Peer(hub: StreamHub())
        try peer.handshake()
        try peer.send(.userControl(.pingRequest(timestamp: 1234)))
        #expect(try peer.replies() == [.userControl(.pingResponse(timestamp: 1234))])
    }

    @Test func silentPeerIsClosedAfterTheHandshakeTimeout() throws {
        let peer = try Peer(hub: StreamHub())
        try peer.send([3])
        peer.channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(peer.channel.isActive)
        peer.channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!peer.channel.isActive)
    }

    @Test func completedHandshakeCancelsTheTimeout() throws {
        let peer = try Peer(hub: StreamHub())
        try peer.handshake()
        peer.channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(peer.channel.isActive)
    }
}
