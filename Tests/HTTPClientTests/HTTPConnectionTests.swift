import HTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import TestSupport
import Testing

/// A small real HTTP/1.1 server for the connection: `/n` answers how many requests this connection has served,
/// `/close` answers then closes, `/hang` never answers, `/big` sends 1 MiB, `/echo` answers the method and body.
final class TestHTTPServer: Sendable {
    let port: Int
    private let channel: any Channel

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    static func start(group: any EventLoopGroup) async throws -> TestHTTPServer {
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TestHTTPServer(port: channel.localAddress?.port ?? 0, channel: channel)
    }

    func stop() async { try? await channel.close() }

    /// Answers each request as its path says.
    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        private var served = 0
        private var path = ""
        private var method = ""
        private var received: [UInt8] = []

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                (path, method, received) = (head.uri, head.method.rawValue, [])
            case .body(let buffer): received += buffer.readableBytesView
            case .end:
                served += 1
                if path == "/hang" { return }
                let body: [UInt8] =
                    switch path {
                    case "/big": [UInt8](repeating: 0x5A, count: 1 << 20)
                    case "/echo": Array("\(method) ".utf8) + received
                    default: Array("\(served)".utf8)
                    }
                var headers = HTTPHeaders([("Content-Length", "\(body.count)")])
                if path == "/close" { headers.add(name: "Connection", value: "close") }
                context.write(
                    wrapOutboundOut(
                        .head(
                            HTTPResponseHead(
                                version: .http1_1,
                                status: path == "/missing" ? .notFound : .ok,
                                headers: headers
                            )
                        )
                    ),
                    promise: nil
                )
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
                let closing = path == "/close"
                let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                    if closing { bound.value.close(promise: nil) }
                }
            }
        }
    }
}

/// The keep-alive connection and the one-off client against a real server over loopback.
@Suite struct HTTPConnectionTests {
    @Test func sequentialGetsShareOneKeepAliveConnection() async throws {
        let server = try await TestHTTPServer.start(group: MultiThreadedEventLoopGroup.singleton)
        let connection = HTTPConnection(host: "127.0.0.1", port: server.port)
        var bodies: [String] = []
        for _ in 0..<5 {
            let r = try await connection.get("/n")
            #expect(r.status == 200)
            #expect(r.sent <= r.firstByte && r.firstByte <= r.completed && r.firstByteWall <= r.completedWall)
            bodies.append(String(decoding: r.body, as: UTF8.self))
        }
        #expect(bodies == ["1", "2", "3", "4", "5"])
        #expect(await connection.connections == 1)
        let big = try await connection.get("/big", discardBody: true)
        #expect(big.body.isEmpty && big.bodyCount == 1 << 20)
        #expect(try await connection.get("/missing").status == 404)
        await connection.close()
        await server.stop()
    }

    @Test func reconnectsAfterTheServerCloses() async throws {
        let server = try await TestHTTPServer.start(group: MultiThreadedEventLoopGroup.singleton)
        let connection = HTTPConnection(host: "127.0.0.1", port: server.port)
        #expect(try await connection.get("/close").header("connection") == "close")
        #expect(try await connection.get("/n").body == Array("1".utf8))
        #expect(await connection.connections == 2)
        await connection.close()
        await server.stop()
    }

    @Test func aSilentServerTimesOutAndTheNextRequestWorks() async throws {
        let server = try await TestHTTPServer.start(group: MultiThreadedEventLoopGroup.singleton)
        let connection = HTTPConnection(host: "127.0.0.1", port: server.port)
        let url = "http://127.0.0.1:\(server.port)/hang"
        await #expect(throws: HTTPClientError.timedOut(url: url, after: .milliseconds(200))) {
            try await connection.get("/hang", timeout: .milliseconds(200))
        }
        #expect(try await connection.get("/n").status == 200)
        await connection.close()
        await server.stop()
    }

    @Test func aClosedPortIsAConnectError() async throws {
        let port = ExternalTool.freePort()
        let connection = HTTPConnection(host: "127.0.0.1", port: port)
        await #expect {
            try await connection.get("/")
        } throws: { error in
            guard case .connectFailed(let url, _) = error as? HTTPClientError else { return false }
            return url == "http://127.0.0.1:\(port)/"
        }
    }

    @Test func manyConnectionsShareOneEventLoopGroup() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let server = try await TestHTTPServer.start(group: group)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { tasks in
            for _ in 0..<300 {
                tasks.addTask {
                    let connection = HTTPConnection(host: "127.0.0.1", port: server.port, group: group)
                    let a = try await connection.get("/n")
                    let b = try await connection.get("/n")
                    await connection.close()
                    return a.status + b.status
                }
            }
            return try await tasks.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 300 && statuses.allSatisfy { $0 == 400 })
        await server.stop()
        try await group.shutdownGracefully()
    }

    @Test func theOneOffClientSendsItsBodyOnAFreshConnection() async throws {
        let server = try await TestHTTPServer.start(group: MultiThreadedEventLoopGroup.singleton)
        let url = try #require(HTTPLocation("http://127.0.0.1:\(server.port)/echo"))
        let response = try await HTTPClient(timeout: .seconds(5)).request("POST", url, body: Array("hello".utf8))
        #expect(response.status == 200 && response.text == "POST hello")
        // Each exchange is its own connection: the server's per-connection count starts again.
        let first = try await HTTPClient().request("GET", try #require(url.resolving("/n")))
        let second = try await HTTPClient().request("GET", try #require(url.resolving("/n")))
        #expect(first.text == "1" && second.text == "1")
        await server.stop()
    }
}
