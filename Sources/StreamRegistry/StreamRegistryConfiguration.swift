extension StreamRegistry {
    /// How this node appears in the registry.
    public struct Configuration: Sendable {
        /// How other nodes reach this one (`http://10.0.0.5:8080`): the value stored under each key it holds.
        public var nodeURL: String
        /// How long an entry outlives its last refresh: a crashed node's keys are gone within it.
        public var ttl: Duration = .seconds(3)
        /// Prefix of the registry's keys in Redis; a stream's entry is `<prefix><stream key>`.
        public var keyPrefix = "sluice:stream:"
        /// Prefix of the stream positions this node records while it holds a key (`<prefix><stream key>`).
        public var positionPrefix = "sluice:pos:"
        /// How long a position outlives its last refresh: a node the encoder reconnects to within it continues the
        /// stream's numbering; later, it starts a new stream (the publisher's reconnect grace).
        public var positionTTL: Duration = .seconds(60)

        /// The defaults for a node reached at `nodeURL`.
        public init(nodeURL: String) {
            self.nodeURL = nodeURL
        }

        /// Time between refreshes (and retries, and probes while Redis is down): a third of the TTL, so two
        /// refreshes may be lost before an entry expires.
        public var refreshInterval: Duration { ttl / 3 }
    }
}
