extension ClusterRelay {
    /// How the relay finds owners, fetches from them and keeps what it fetched.
    public struct Configuration: Sendable {
        /// This node's URL as the registry stores it: a lookup naming it means "nobody else" (no relay to itself).
        public var nodeURL: String
        /// How long an owner lookup (or its absence) is reused before Redis is asked again.
        public var lookupLifetime: Duration = .milliseconds(500)
        /// Bound on one fetch from an owner, connect included: longer than any blocking reload the owner holds.
        public var fetchTimeout: Duration = .seconds(10)
        /// Longest a response is kept, whatever its `Cache-Control` says (parts are immutable for minutes).
        public var maxCacheAge: Duration = .seconds(30)
        /// Most responses kept at once.
        public var cacheCapacity = 4_096

        /// The defaults for a node reached at `nodeURL`.
        public init(nodeURL: String) {
            self.nodeURL = nodeURL
        }
    }
}
