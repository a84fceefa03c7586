import MediaCore
import RedisClient

/// Stream positions: while this node holds a key, each refresh also records where its stream stands, so that the node
/// its encoder reconnects to (after a crash here, or a move) continues the numbering viewers follow.
extension StreamRegistry {
    /// Where a live stream stands on this node now; nil when there is nothing to record (yet).
    public typealias PositionSource = @Sendable (StreamKey) -> StreamPosition?

    /// Records `source`'s position of every key this node holds at each refresh (set once, before `run`: the
    /// packager that knows positions is built after the registry it reads continuations from).
    public func recordPositions(from source: @escaping PositionSource) {
        positions = source
    }

    /// The last position recorded for `key` by any node, nil when none is stored (never recorded, expired, or not
    /// readable by this version).
    public func position(of key: StreamKey) async throws(StreamRegistryError) -> StreamPosition? {
        let entry = positionKey(key)
        let stored = try await call(nil) { client throws(RedisClientError) in try await client.get(entry) }
        return stored.flatMap { StreamPosition(redisValue: $0) }
    }

    /// The Redis key of a stream's position.
    func positionKey(_ key: StreamKey) -> String { configuration.positionPrefix + key.rawValue }
}
