import RedisClient

/// Why a registry operation failed; each case carries the Redis client's error, which names the endpoint or command.
public enum StreamRegistryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Redis cannot be reached or stopped answering. Calls fail at once while it is down; the registry keeps probing
    /// in the background and registers its live keys again when Redis returns.
    case redisUnavailable(RedisClientError)
    /// Redis answered but refused the command or answered in an unexpected shape.
    case redisFailed(RedisClientError)

    /// The registry's error for a client error.
    init(_ error: RedisClientError) {
        self = error.isConnectionFailure ? .redisUnavailable(error) : .redisFailed(error)
    }

    /// The Redis client's error behind this one.
    public var cause: RedisClientError {
        switch self {
        case .redisUnavailable(let error), .redisFailed(let error): error
        }
    }

    public var description: String {
        switch self {
        case .redisUnavailable(let error): "stream registry: Redis unavailable (retrying in the background): \(error)"
        case .redisFailed(let error): "stream registry: \(error)"
        }
    }
}
