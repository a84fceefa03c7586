import RedisWire

/// Why a Redis command got no usable answer; each case names the endpoint or the command.
public enum RedisClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is not `redis://[[user]:password@]host[:port][/db]`.
    case invalidURL(String, reason: String)
    /// TCP connect failed or timed out, or the connection's AUTH/SELECT was refused.
    case connectFailed(endpoint: String, reason: String)
    /// The connection closed (or was closed) before the command's reply arrived; the next command reconnects.
    case connectionClosed(endpoint: String, reason: String)
    /// No reply within the per-command limit; the connection is closed (later replies would be out of order).
    case timedOut(command: String, endpoint: String, after: Duration)
    /// The server answered with an error reply (`-ERR …`, `-WRONGTYPE …`).
    case server(command: String, message: String)
    /// A reply of a type the command never answers with.
    case unexpectedReply(command: String, reply: String)
    /// The server sent bytes that are not RESP2; the connection is closed.
    case protocolViolation(endpoint: String, RedisWireError)

    /// Whether the server could not be reached or stopped answering (as opposed to refusing one command).
    public var isConnectionFailure: Bool {
        switch self {
        case .connectFailed, .connectionClosed, .timedOut, .protocolViolation: true
        case .invalidURL, .server, .unexpectedReply: false
        }
    }

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): "invalid Redis URL '\(url)': \(reason)"
        case .connectFailed(let endpoint, let reason): "connect to Redis at \(endpoint) failed: \(reason)"
        case .connectionClosed(let endpoint, let reason): "Redis connection to \(endpoint) closed: \(reason)"
        case .timedOut(let command, let endpoint, let after):
            "\(command): no reply from Redis at \(endpoint) within \(after)"
        case .server(let command, let message): "\(command): Redis answered \(message)"
        case .unexpectedReply(let command, let reply): "\(command): unexpected Redis reply \(reply)"
        case .protocolViolation(let endpoint, let error): "Redis at \(endpoint) broke the protocol: \(error)"
        }
    }
}
