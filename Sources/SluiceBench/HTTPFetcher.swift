import MediaCore
import NIOCore
import NIOHTTP1
import NIOPosix

/// A minimal HTTP/1.1 client: one keep-alive connection to one host:port, sequential GETs (RFC 9112 §9.3).
///
/// Cheap enough for thousands of instances on one event loop group: no thread or task per request, one channel
/// each. Reconnects when the server closed the connection, and retries a GET once if a reused connection
/// turned out to be closed (GET is idempotent, RFC 9110 §9.2.2).
public actor HTTPFetcher {
    /// The server's host.
    public nonisolated let host: String
    /// The server's port.
    public nonisolated let port: Int
    /// Bound on TCP connect.
    public nonisolated let connectTimeout: Duration
    private let group: any EventLoopGroup
    private var channel: (any Channel)?
    private var busy = false
    /// Connections opened so far (1 when keep-alive held throughout).
    public private(set) var connections = 0
    /// Requests answered so far.
    public private(set) var requests = 0

    /// A fetcher for `host`:`port`; connects lazily on the first GET.
    public init(
        host: String,
        port: Int,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        connectTimeout: Duration = .seconds(5)
    ) {
        self.host = host
        self.port = port
        self.group = group
        self.connectTimeout = connectTimeout
    }

    /// A fetcher for the origin of `url`.
    public init(
        origin url: HTTPURL,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        connectTimeout: Duration = .seconds(5)
    ) {
        self.init(host: url.host, port: url.port, group: group, connectTimeout: connectTimeout)
    }

    deinit { channel?.close(promise: nil) }

    /// GETs `target` ("/path?query", or an absolute URL on this origin); any status is returned, not thrown.
    public func get(
        _ target: String,
        timeout: Duration = .seconds(10),
        discardBody: Bool = false
    ) async throws(BenchError) -> HTTPFetchResult {
        let requestTarget = target.hasPrefix("http://") ? try HTTPURL(target).target : target
        let url = "http://\(host):\(port)\(requestTarget)"
        guard !busy else { throw .fetcherBusy(url: url) }
        busy = true
        defer { busy = false }
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: requestTarget)
        head.headers.add(name: "Host", value: "\(host):\(port)")
        head.headers.add(name: "User-Agent", value: "sluice-bench")
        for attempt in 0..<2 {
            let (channel, reused) = try await connection()
            do {
                let result = try await send(
                    HTTPFetchRequest.Template(head: head, url: url, timeout: timeout, discardBody: discardBody),
                    on: channel
                )
                requests += 1
                return result
            } catch {
                if !channel.isActive { self.channel = nil }
                let retriable: Bool
                switch error {
                case .connectionClosed, .requestFailed: retriable = reused && attempt == 0
                default: retriable = false
                }
                if !retriable { throw error }
            }
        }
        throw .connectionClosed(url: url)
    }

    /// Closes the connection; a later GET reconnects.
    public func close() async {
        guard let channel else { return }
        self.channel = nil
        try? await channel.close()
    }

    /// The open channel, or a new one; `reused` says whether it served a request before.
    private func connection() async throws(BenchError) -> (any Channel, reused: Bool) {
        if let channel, channel.isActive { return (channel, true) }
        channel = nil
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(
                .nanoseconds(
                    Int64(connectTimeout.components.seconds) * 1_000_000_000
                        + connectTimeout.components.attoseconds / 1_000_000_000
                )
            )
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(HTTPResponseCollector())
                }
            }
        do {
            let fresh = try await bootstrap.connect(host: host, port: port).get()
            channel = fresh
            connections += 1
            return (fresh, false)
        } catch {
            throw .connectFailed(host: host, port: port, reason: "\(error)")
        }
    }

    /// Writes one request and waits for its complete response.
    private func send(
        _ template: HTTPFetchRequest.Template,
        on channel: any Channel
    ) async throws(BenchError) -> HTTPFetchResult {
        let promise = channel.eventLoop.makePromise(of: HTTPFetchResult.self)
        let request = HTTPFetchRequest(
            head: template.head,
            url: template.url,
            timeout: template.timeout,
            discardBody: template.discardBody,
            promise: promise
        )
        channel.writeAndFlush(request).whenFailure { error in
            promise.fail(BenchError.requestFailed(url: template.url, reason: "\(error)"))
        }
        do {
            return try await promise.futureResult.get()
        } catch let error as BenchError {
            throw error
        } catch {
            throw .requestFailed(url: template.url, reason: "\(error)")
        }
    }
}

extension HTTPFetchRequest {
    /// A request before its promise exists.
    struct Template: Sendable {
        var head: HTTPRequestHead
        var url: String
        var timeout: Duration
        var discardBody: Bool
    }
}
