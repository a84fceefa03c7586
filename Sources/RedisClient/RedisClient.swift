import NIOCore
import NIOPosix
import RedisWire

/// One connection to one Redis server, commands pipelined and answered in order: the registry's client.
///
/// Connects lazily on the first command (then AUTH and SELECT when the URL asks for them). Concurrent callers share
/// the connection: their commands are written as they come, without waiting for earlier replies. A connection that
/// closes or fails fails its pending commands with a `RedisClientError`; the client does not retry, the next command
/// reconnects.
public actor RedisClient {
    /// Where and how the client connects.
    public nonisolated let configuration: Configuration
    private let group: any EventLoopGroup
    private var channel: (any Channel)?
    private var connecting: Task<Result<any Channel, RedisClientError>, Never>?
    /// Connections opened so far (1 while the first one held).
    public private(set) var connections = 0

    /// A client for `configuration`; nothing connects until the first command.
    public init(
        configuration: Configuration,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.configuration = configuration
        self.group = group
    }

    /// A client for `url` (`redis://[[user]:password@]host[:port][/db]`) with the default timeouts.
    public init(
        url: String,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) throws(RedisClientError) {
        self.init(configuration: Configuration(url: try RedisURL(parsing: url)), group: group)
    }

    deinit { channel?.close(promise: nil) }

    /// Sends `command` and returns its reply as sent, error replies (`.error`) included.
    public func send(_ command: RedisCommand) async throws(RedisClientError) -> RESPValue {
        let channel = try await connectedChannel()
        return try await Self.send(command, on: channel, configuration: configuration)
    }

    /// Sends `command`; an error reply is thrown as `.server`.
    func execute(_ command: RedisCommand) async throws(RedisClientError) -> RESPValue {
        let reply = try await send(command)
        if case .error(let message) = reply { throw .server(command: command.description, message: message) }
        return reply
    }

    /// Closes the connection; pending commands fail and the next command reconnects.
    public func close() async {
        guard let channel else { return }
        self.channel = nil
        try? await channel.close()
    }

    /// The open connection, or a new one (shared by the callers that ask while it is being made).
    private func connectedChannel() async throws(RedisClientError) -> any Channel {
        if let channel, channel.isActive { return channel }
        channel = nil
        if let connecting { return try await connecting.value.get() }
        let task = Task { [configuration, group] in await Self.connect(configuration, group: group) }
        connecting = task
        let result = await task.value
        connecting = nil
        let fresh = try result.get()
        channel = fresh
        connections += 1
        return fresh
    }

    /// TCP connect within the connect timeout, then AUTH and SELECT if the URL has them.
    private static func connect(
        _ configuration: Configuration,
        group: any EventLoopGroup
    ) async -> Result<any Channel, RedisClientError> {
        let url = configuration.url
        let endpoint = url.endpoint
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(TimeAmount(configuration.connectTimeout))
                .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            RESPReplyHandler(endpoint: endpoint, limits: configuration.parserLimits)
                        )
                    }
                }
                .connect(host: url.host, port: url.port).get()
        } catch {
            return .failure(.connectFailed(endpoint: endpoint, reason: "\(error)"))
        }
        var handshake: [RedisCommand] = []
        if let password = url.password {
            handshake.append(url.username.map { RedisCommand("AUTH", $0, password) } ?? RedisCommand("AUTH", password))
        }
        if let database = url.database { handshake.append(RedisCommand("SELECT", String(database))) }
        for command in handshake {
            do {
                let reply = try await send(command, on: channel, configuration: configuration)
                guard reply == .simpleString("OK") else {
                    channel.close(promise: nil)
                    return .failure(.connectFailed(endpoint: endpoint, reason: "\(command.name) answered \(reply)"))
                }
            } catch {
                channel.close(promise: nil)
                return .failure(.connectFailed(endpoint: endpoint, reason: "\(command.name): \(error)"))
            }
        }
        return .success(channel)
    }

    /// Writes one command and waits for its reply.
    private static func send(
        _ command: RedisCommand,
        on channel: any Channel,
        configuration: Configuration
    ) async throws(RedisClientError) -> RESPValue {
        let promise = channel.eventLoop.makePromise(of: RESPValue.self)
        let endpoint = configuration.url.endpoint
        let request = RedisRequest(command: command, timeout: configuration.commandTimeout, promise: promise)
        channel.writeAndFlush(request).whenFailure { error in
            promise.fail(RedisClientError.connectionClosed(endpoint: endpoint, reason: "write failed: \(error)"))
        }
        do {
            return try await promise.futureResult.get()
        } catch let error as RedisClientError {
            throw error
        } catch {
            throw .connectionClosed(endpoint: endpoint, reason: "\(error)")
        }
    }
}
