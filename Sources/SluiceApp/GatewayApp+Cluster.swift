import ClusterRelay
import HTTPOrigin
import LLHLSPackager
import Logging
import MediaCore
import RedisClient
import StreamHub
import StreamRegistry

extension GatewayApp {
    /// The cluster's pieces when `cluster.*` is set: the registry (run by `service`) and the relay.
    struct Cluster {
        let registry: StreamRegistry
        let relay: ClusterRelay
        let hub: StreamHub
        let logger: Logger
        let nodeURL: String
        /// The edge's shard backends (`cluster.nodes`), for `/api/ingest/{key}`.
        let ring: ShardRing
    }

    /// Registry over the configured Redis and a relay that asks it; nil without `cluster.redis_url`/`node_url`.
    static func makeCluster(_ c: SluiceConfiguration, hub: StreamHub, logger: Logger) throws -> Cluster? {
        guard let redisURL = c.cluster.redisURL, let nodeURL = c.cluster.nodeURL else { return nil }
        let client = try RedisClient(url: redisURL)
        var registryConfiguration = StreamRegistry.Configuration(nodeURL: nodeURL)
        // A position outlives its stream by the publisher's reconnect grace: the reconnect window it serves.
        registryConfiguration.positionTTL = max(c.hls.reconnectGrace, registryConfiguration.ttl)
        let registry = StreamRegistry(client: client, configuration: registryConfiguration, logger: logger)
        let relay = ClusterRelay(
            configuration: .init(nodeURL: nodeURL),
            // Redis down: no owner is known, so streams held elsewhere answer as not live; ours are served still.
            lookup: { key in try? await registry.lookup(key) },
            logger: logger
        )
        return Cluster(
            registry: registry,
            relay: relay,
            hub: hub,
            logger: logger,
            nodeURL: nodeURL,
            ring: ShardRing(nodes: c.cluster.nodes)
        )
    }
}

extension GatewayApp.Cluster {
    /// Adds the relay (for keys not served here), `/api/cluster` and `/api/ingest/{key}` to the origin.
    func install(into options: inout HTTPOriginOptions, ports: ClusterOriginRoutes.IngestPorts) {
        let relay = relay
        options.streamFallback = StreamFallback { key, target in
            guard let answer = await relay.answer(key: key, target: target) else { return nil }
            return FallbackResponse(status: answer.status, headers: answer.headers, body: answer.body)
        }
        options.routeGroups += ClusterOriginRoutes.group(
            registry: registry,
            relay: relay,
            nodeURL: nodeURL,
            ports: ports,
            ring: ring
        )
    }

    /// Keeps the registry in step with the hub and retires streams that moved away (`ClusterRegistrationService`).
    func service(packager: LLHLSPackager) -> ClusterRegistrationService {
        ClusterRegistrationService(hub: hub, registry: registry, packager: packager, logger: logger)
    }

    /// The node that serves `key` when it is not live here (WHEP's redirect).
    func owner(hub: StreamHub) -> @Sendable (StreamKey) async -> String? {
        let relay = relay
        return { key in hub.publication(for: key) == nil ? await relay.owner(of: key) : nil }
    }
}
