import ClusterRelay
import HTTPClient
import RedisClient

extension SluiceConfiguration {
    /// Several origins behind one edge (`cluster.*`, docs/SCALING.md): off unless both URLs are set.
    public struct Cluster: Sendable, Equatable {
        /// The registry's Redis (`cluster.redis_url`, `--cluster-redis`), `redis://[[user]:password@]host[:port][/db]`.
        public var redisURL: String?
        /// How the other nodes reach this one over HTTP (`cluster.node_url`, `--node-url`): the value the registry
        /// stores under each stream key this node holds, and what they relay from.
        public var nodeURL: String?
        /// The edge's shard backends as `NAME=NODE_URL` (`cluster.nodes`): the VCL's backend names (origin_1, …) and the
        /// node URLs they reach. With them `/api/ingest/{key}` asked of any origin names the origin the edge routes the
        /// key to; without, the origin answers its own URLs (right when asked through the edge).
        public var nodes: [ShardRing.Node] = []

        /// The defaults: no cluster.
        public init() {}

        /// Registry and relay run only with both URLs.
        public var isEnabled: Bool { redisURL != nil && nodeURL != nil }
    }

    /// The `cluster` section.
    static func readCluster(_ r: inout ConfigReader, into c: inout SluiceConfiguration) throws {
        if let s = try r.string("redis_url") { c.cluster.redisURL = s.isEmpty ? nil : s }
        if let s = try r.string("node_url") { c.cluster.nodeURL = s.isEmpty ? nil : s }
        if let entries = try r.takeStrings("nodes")?.filter({ !$0.isEmpty }) {
            c.cluster.nodes = try entries.map { entry in
                let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, HTTPLocation(parts[1]) != nil else {
                    throw ConfigurationError(
                        key: "cluster.nodes",
                        allowed: "entries NAME=URL (the VCL backend name and that origin's http:// node URL)",
                        found: entry
                    )
                }
                return ShardRing.Node(name: parts[0], url: parts[1])
            }
        }
    }

    /// Both URLs or neither, each one parsable; the node URL is http(s).
    func validateCluster() throws {
        switch (cluster.redisURL, cluster.nodeURL) {
        case (nil, nil): break
        case (nil, _):
            throw ConfigurationError(
                key: "cluster.redis_url",
                allowed: "a redis:// URL when cluster.node_url is set",
                found: "nothing"
            )
        case (_, nil):
            throw ConfigurationError(
                key: "cluster.node_url",
                allowed: "this node's http:// URL when cluster.redis_url is set",
                found: "nothing"
            )
        case (let redis?, _):
            do {
                _ = try RedisURL(parsing: redis)
            } catch {
                throw ConfigurationError(key: "cluster.redis_url", allowed: "redis://host[:port][/db]", found: redis)
            }
        }
        if let url = cluster.nodeURL, HTTPLocation(url) == nil {
            throw ConfigurationError(key: "cluster.node_url", allowed: "an http:// or https:// URL", found: url)
        }
    }

    /// The printed `cluster` section (`sluice config print`).
    var clusterTree: ConfigNode {
        .map([
            .init(key: "redis_url", value: .string(cluster.redisURL ?? "")),
            .init(key: "node_url", value: .string(cluster.nodeURL ?? "")),
            .init(key: "nodes", value: .list(cluster.nodes.map { .string("\($0.name)=\($0.url)") })),
        ])
    }
}
