import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The gateway's HTTP/1.1 client for one-off exchanges (WHIP signaling, the publish webhook, `sluice stats`): one
/// request per connection over SwiftNIO (TLS through NIOSSL for https), bounded as a whole by `timeout`.
public struct HTTPClient: Sendable {
    /// Limit for connect plus the whole response.
    public var timeout: Duration
    /// The `User-Agent` field sent.
    public var userAgent: String
    private let group: any EventLoopGroup

    /// A client on `group`.
    public init(
        timeout: Duration = .seconds(10),
        userAgent: String = "sluice",
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.timeout = timeout
        self.userAgent = userAgent
        self.group = group
    }

    /// Sends `method url` with `headers` and `body`, and returns the whole response whatever its status.
    public func request(
        _ method: String,
        _ url: HTTPLocation,
        headers extra: [(String, String)] = [],
        body: [UInt8]? = nil
    ) async throws(HTTPClientError) -> HTTPClientResponse {
        let name = url.description
        let timeout = timeout
        let start = ContinuousClock.now
        let promise = group.next().makePromise(of: HTTPClientResponse.self)
        let channel: any Channel
        do {
            let tls = try url.isSecure ? NIOSSLContext(configuration: .makeClientConfiguration()) : nil
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(TimeAmount(timeout))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls {
                            // SNI and certificate checks name the host; an IP address gets no SNI (RFC 6066 §3).
                            let name = url.host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" } ? nil : url.host
                            try channel.pipeline.syncOperations.addHandler(
                                NIOSSLClientHandler(context: tls, serverHostname: name)
                            )
                        }
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(HTTPClientCollector(promise: promise))
                    }
                }
                .connect(host: url.host, port: url.port).get()
        } catch {
            promise.fail(error)
            throw .connectFailed(url: name, reason: "\(error)")
        }
        var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: url.target)
        head.headers.add(name: "Host", value: url.authority)
        head.headers.add(name: "Connection", value: "close")
        head.headers.add(name: "User-Agent", value: userAgent)
        for (name, value) in extra { head.headers.add(name: name, value: value) }
        head.headers.add(name: "Content-Length", value: "\(body?.count ?? 0)")
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil) }
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        // One limit for the whole exchange: what connecting took is no longer available to the answer.
        let remaining = max(.zero, timeout - (ContinuousClock.now - start))
        let deadline = channel.eventLoop.scheduleTask(in: TimeAmount(remaining)) {
            // The collector fails the promise once; a second fail would be a NIO programming error.
            channel.pipeline.fireErrorCaught(HTTPClientError.timedOut(url: name, after: timeout))
        }
        defer {
            deadline.cancel()
            channel.close(promise: nil)
        }
        do {
            return try await promise.futureResult.get()
        } catch let error as HTTPClientError {
            throw error
        } catch {
            throw .failed(url: name, reason: "\(error)")
        }
    }
}

/// Collects one response; fails the promise if the connection closes first.
private final class HTTPClientCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let promise: EventLoopPromise<HTTPClientResponse>
    private var response: HTTPClientResponse?
    private var body = ByteBuffer()
    private var done = false

    init(promise: EventLoopPromise<HTTPClientResponse>) { self.promise = promise }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            var headers: [String: String] = [:]
            for (name, value) in head.headers where headers[name.lowercased()] == nil {
                headers[name.lowercased()] = value
            }
            response = HTTPClientResponse(status: Int(head.status.code), headers: headers)
        case .body(var part):
            body.writeBuffer(&part)
        case .end:
            guard var response, !done else { return }
            done = true
            response.body = Array(body.readableBytesView)
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
