import NIOCore
import NIOHTTP1
import NIOPosix

/// RFC 9110 §15: what the WHIP endpoint answered (status, headers by lower-cased name, body as text).
public struct WHIPHTTPResponse: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// Header values by lower-cased name (the first of repeated headers).
    public var headers: [String: String]
    /// The body as UTF-8 text.
    public var body: String

    /// A response.
    public init(status: Int, headers: [String: String] = [:], body: String = "") {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// One HTTP/1.1 request per connection to the WHIP endpoint (POST offer, DELETE session): the thin I/O edge.
struct WHIPHTTPClient: Sendable {
    let group: any EventLoopGroup
    let timeout: Duration

    /// Sends `method target` to `host:port` with `body` and returns the whole response.
    func request(
        _ method: HTTPMethod, host: String, port: Int, target: String, headers extra: [(String, String)], body: String?
    ) async throws(WHIPPublishError) -> WHIPHTTPResponse {
        let url = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)\(target)"
        let promise = group.next().makePromise(of: WHIPHTTPResponse.self)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(TimeAmount(timeout))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(ResponseCollector(promise: promise))
                    }
                }
                .connect(host: host, port: port).get()
        } catch {
            promise.fail(error)
            throw .http(url: url, reason: "connect: \(error)")
        }
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: target)
        head.headers.add(name: "Host", value: "\(host.contains(":") ? "[\(host)]" : host):\(port)")
        head.headers.add(name: "Connection", value: "close")
        head.headers.add(name: "User-Agent", value: "sluice-whip")
        for (name, value) in extra { head.headers.add(name: name, value: value) }
        let bytes = body.map { ByteBuffer(string: $0) }
        head.headers.add(name: "Content-Length", value: "\(bytes?.readableBytes ?? 0)")
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        if let bytes { channel.write(HTTPClientRequestPart.body(.byteBuffer(bytes)), promise: nil) }
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        let deadline = channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            // The collector fails the promise once; a second fail would be a NIO programming error.
            channel.pipeline.fireErrorCaught(WHIPPublishError.http(url: url, reason: "no response within \(timeout)"))
        }
        defer {
            deadline.cancel()
            channel.close(promise: nil)
        }
        do {
            return try await promise.futureResult.get()
        } catch let error as WHIPPublishError {
            throw error
        } catch {
            throw .http(url: url, reason: "\(error)")
        }
    }
}

/// Collects one response; fails the promise if the connection closes first.
private final class ResponseCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let promise: EventLoopPromise<WHIPHTTPResponse>
    private var response: WHIPHTTPResponse?
    private var body = ByteBuffer()
    private var done = false

    init(promise: EventLoopPromise<WHIPHTTPResponse>) { self.promise = promise }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            var headers: [String: String] = [:]
            for (name, value) in head.headers where headers[name.lowercased()] == nil { headers[name.lowercased()] = value }
            response = WHIPHTTPResponse(status: Int(head.status.code), headers: headers)
        case .body(var part):
            body.writeBuffer(&part)
        case .end:
            guard var response, !done else { return }
            done = true
            response.body = String(buffer: body)
            promise.succeed(response)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !done {
            done = true
            promise.fail(ChannelError.eof)
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !done {
            done = true
            promise.fail(error)
        }
        context.close(promise: nil)
    }
}
