import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One HTTP/1.1 connection to one origin, sequential requests over keep-alive (RFC 9112 §9.3): the client stack
/// under `HTTPClient`'s one-off exchanges and the bench's viewers.
///
/// Cheap enough for thousands of instances on one event loop group: no thread or task per request, one channel
/// each. Reconnects when the server closed the connection, and retries a GET once if a reused connection
/// turned out to be closed (GET is idempotent, RFC 9110 §9.2.2).
public actor HTTPConnection {
    /// The server's host.
    public nonisolated let host: String
    /// The server's port.
    public nonisolated let port: Int
    /// TLS to the host (https).
    public nonisolated let isSecure: Bool
    /// Bound on TCP (and TLS) connect.
    public nonisolated let connectTimeout: Duration
    /// The `User-Agent` field sent.
    public nonisolated let userAgent: String
    private let group: any EventLoopGroup
    private var channel: (any Channel)?
    private var busy = false
    /// Connections opened so far (1 when keep-alive held throughout).
    public private(set) var connections = 0
    /// Requests answered so far.
    public private(set) var requests = 0

    /// A connection to `host`:`port`; connects lazily on the first request.
    public init(
        host: String,
        port: Int,
        isSecure: Bool = false,
        userAgent: String = "sluice",
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        connectTimeout: Duration = .seconds(5)
    ) {
        self.host = host
        self.port = port
        self.isSecure = isSecure
        self.userAgent = userAgent
        self.group = group
        self.connectTimeout = connectTimeout
    }

    /// A connection to the origin (scheme, host, port) of `url`.
    public init(
        origin url: HTTPLocation,
        userAgent: String = "sluice",
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        connectTimeout: Duration = .seconds(5)
    ) {
        self.init(
            host: url.host,
            port: url.port,
            isSecure: url.isSecure,
            userAgent: userAgent,
            group: group,
            connectTimeout: connectTimeout
        )
    }

    deinit { channel?.close(promise: nil) }

    /// GETs `target` ("/path?query"); any status is returned, not thrown.
    public func get(
        _ target: String,
        timeout: Duration = .seconds(10),
        discardBody: Bool = false
    ) async throws(HTTPClientError) -> HTTPClientResponse {
        try await request("GET", target, timeout: timeout, discardBody: discardBody)
    }

    /// Sends `method target` with `headers` and `body` (a `Content-Length` goes with any body, even empty);
    /// `timeout` bounds connecting plus the whole response. Any status is returned, not thrown.
    public func request(
        _ method: String,
        _ target: String,
        headers extra: [(String, String)] = [],
        body: [UInt8]? = nil,
        timeout: Duration = .seconds(10),
        discardBody: Bool = false
    ) async throws(HTTPClientError) -> HTTPClientResponse {
        let location = HTTPLocation(host: host, port: port, target: target, isSecure: isSecure)
        let url = location.description
        guard !busy else { throw .busy(url: url) }
        busy = true
        defer { busy = false }
        let start = ContinuousClock.now
        var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: target)
        head.headers.add(name: "Host", value: location.authority)
        head.headers.add(name: "User-Agent", value: userAgent)
        for (name, value) in extra { head.headers.add(name: name, value: value) }
        if let body { head.headers.add(name: "Content-Length", value: "\(body.count)") }
        let idempotent = method == "GET" || method == "HEAD"
        for attempt in 0..<2 {
            let (channel, reused) = try await connection(url: url, within: timeout)
            // One limit for the whole exchange: what connecting took is no longer available to the answer.
            let exchange = HTTPExchange.Template(
                head: head,
                body: body,
                url: url,
                limit: timeout,
                remaining: max(.zero, timeout - (ContinuousClock.now - start)),
                discardBody: discardBody
            )
            do {
                let result = try await send(exchange, on: channel)
                requests += 1
                return result
            } catch {
                if !channel.isActive { self.channel = nil }
                let retriable: Bool
                switch error {
                case .connectionClosed, .failed: retriable = idempotent && reused && attempt == 0
                default: retriable = false
                }
                if !retriable { throw error }
            }
        }
        throw .connectionClosed(url: url)
    }

    /// Closes the connection; a later request reconnects.
    public func close() async {
        guard let channel else { return }
        self.channel = nil
        try? await channel.close()
    }

    /// The open channel, or a new one; `reused` says whether it served a request before.
    private func connection(
        url: String,
        within limit: Duration
    ) async throws(HTTPClientError) -> (
        any Channel, reused: Bool
    ) {
        if let channel, channel.isActive { return (channel, true) }
        channel = nil
        let host = host
        do {
            let tls = try isSecure ? NIOSSLContext(configuration: .makeClientConfiguration()) : nil
            let bootstrap = ClientBootstrap(group: group)
                .connectTimeout(TimeAmount(min(connectTimeout, limit)))
                .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls {
                            // SNI and certificate checks name the host; an IP address gets no SNI (RFC 6066 §3).
                            let name = host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" } ? nil : host
                            try channel.pipeline.syncOperations.addHandler(
                                NIOSSLClientHandler(context: tls, serverHostname: name)
                            )
                        }
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(HTTPResponseCollector())
                    }
                }
            let fresh = try await bootstrap.connect(host: host, port: port).get()
            channel = fresh
            connections += 1
            return (fresh, false)
        } catch {
            throw .connectFailed(url: url, reason: "\(error)")
        }
    }

    /// Writes one request and waits for its complete response.
    private func send(
        _ template: HTTPExchange.Template,
        on channel: any Channel
    ) async throws(HTTPClientError) -> HTTPClientResponse {
        let promise = channel.eventLoop.makePromise(of: HTTPClientResponse.self)
        let exchange = HTTPExchange(template: template, promise: promise)
        channel.writeAndFlush(exchange).whenFailure { error in
            promise.fail(HTTPClientError.failed(url: template.url, reason: "\(error)"))
        }
        do {
            return try await promise.futureResult.get()
        } catch let error as HTTPClientError {
            throw error
        } catch {
            throw .failed(url: template.url, reason: "\(error)")
        }
    }
}
