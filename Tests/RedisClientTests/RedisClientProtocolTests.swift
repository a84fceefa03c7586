import NIOCore
import NIOPosix
import RedisClient
import RedisWire
import Testing

/// A loopback server that answers any command with fixed bytes: what the client does with a server that breaks
/// RESP2 or answers what nobody asked.
struct RedisClientProtocolTests {
    /// Writes `reply` once per received read.
    final class FixedReply: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let reply: [UInt8]
        init(_ reply: [UInt8]) { self.reply = reply }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: reply)), promise: nil)
        }
    }

    /// A client of a server answering `reply`, and the server to close.
    static func serve(_ reply: String) async throws -> (RedisClient, any Channel) {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(FixedReply(Array(reply.utf8)))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(server.localAddress?.port)
        return (try RedisClient(url: "redis://127.0.0.1:\(port)"), server)
    }

    @Test func bytesThatAreNotRESPFailTheCommandWithTheOffset() async throws {
        let (client, server) = try await Self.serve("!garbage\r\n")
        defer { server.close(promise: nil) }
        await #expect(
            throws: RedisClientError.protocolViolation(
                endpoint: "127.0.0.1:\(server.localAddress!.port!)",
                .unknownType(byte: 0x21, offset: 0)
            )
        ) {
            try await client.ping()
        }
    }

    @Test func aReplyOfTheWrongTypeNamesCommandAndReply() async throws {
        let (client, server) = try await Self.serve(":42\r\n")
        defer { server.close(promise: nil) }
        await #expect(throws: RedisClientError.unexpectedReply(command: "GET k", reply: "(integer) 42")) {
            try await client.get("k")
        }
    }

    @Test func anUnaskedReplyClosesTheConnection() async throws {
        // Two replies per command: the second answers nothing, so order is lost.
        let (client, server) = try await Self.serve("+PONG\r\n+PONG\r\n")
        defer { server.close(promise: nil) }
        #expect(try await client.ping() == "PONG")
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await client.ping() == "PONG")
        #expect(await client.connections == 2)
    }
}
