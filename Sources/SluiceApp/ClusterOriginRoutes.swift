import ClusterRelay
import Foundation
import HTTPClient
import HTTPOrigin
import MediaCore
import StreamRegistry

/// The cluster's routes: `GET /api/cluster` (every node and the keys it holds, from the registry, plus this node's
/// relay counters) and `GET /api/ingest/{key}` (the ingest URLs of the node the edge's shard director routes the key
/// to: this node's own when it is that node, or when no ring is configured and the edge routed the request here).
enum ClusterOriginRoutes {
    /// The ingest URLs `/api/ingest/{key}` builds from: this node's host and ports.
    struct IngestPorts: Sendable {
        var rtmp: Int
        var srt: Int?
    }

    /// The routes over `registry` and `relay` for this node (`nodeURL`).
    static func group(
        registry: StreamRegistry,
        relay: ClusterRelay,
        nodeURL: String,
        ports: IngestPorts,
        ring: ShardRing = ShardRing(nodes: [])
    ) -> [OriginRouteGroup] {
        [
            OriginRouteGroup(
                prefix: "/api/cluster",
                routes: [
                    OriginRoute(.get, "/api/cluster") { _ in
                        await cluster(registry: registry, relay: relay, node: nodeURL)
                    }
                ]
            ),
            OriginRouteGroup(
                prefix: "/api/ingest/",
                routes: [
                    OriginRoute(.get, "/api/ingest/:key") { request in
                        let key = request.parameters["key"] ?? ""
                        // A node asked by another answers for itself (no second hop, no loop).
                        guard request.header(ClusterRelay.relayHeader) == nil else {
                            return ingest(key: key, node: nodeURL, ports: ports)
                        }
                        return await ingest(key: key, ring: ring, node: nodeURL, ports: ports)
                    }
                ]
            ),
        ]
    }

    /// One node in `/api/cluster`.
    struct Node: Encodable {
        var url: String
        var keys: [String]
    }

    /// The `/api/cluster` document.
    struct Listing: Encodable {
        var node: String
        var redis: String
        var error: String?
        var nodes: [Node]
        var relay: RelayStats
    }

    static func cluster(registry: StreamRegistry, relay: ClusterRelay, node: String) async -> OriginReply {
        var listing = Listing(node: node, redis: "up", nodes: [], relay: relay.stats)
        var status = 200
        do {
            let byNode = try await registry.registrations()
            listing.nodes = byNode.keys.sorted().map { Node(url: $0, keys: byNode[$0, default: []].map(\.rawValue)) }
        } catch {
            (status, listing.redis, listing.error) = (503, "down", "\(error)")
        }
        return json(status, listing)
    }

    /// `/api/ingest/{key}`: where to publish `key` on this node.
    struct Ingest: Encodable {
        var node: String
        var key: String
        var rtmp: String
        var srt: String?
        var whip: String
    }

    static func ingest(key: String, node: String, ports: IngestPorts) -> OriginReply {
        guard let stream = StreamKey(key), let location = HTTPLocation(node) else {
            return OriginReply(status: 404, body: Array("not a stream key\n".utf8))
        }
        let host = location.host.contains(":") ? "[\(location.host)]" : location.host
        let answer = Ingest(
            node: node,
            key: stream.rawValue,
            rtmp: "rtmp://\(host):\(ports.rtmp)/live/\(stream.rawValue)",
            srt: ports.srt.map { "srt://\(host):\($0)?streamid=#!::r=live/\(stream.rawValue),m=publish" },
            whip: "\(location.origin)/whip/\(stream.rawValue)"
        )
        return json(200, answer)
    }

    /// The ingest URLs of `key`'s shard node: asked of that node (it knows its ports), or of the next on the ring when
    /// it does not answer, as the director picks an `alt` backend when one is sick.
    static func ingest(key: String, ring: ShardRing, node: String, ports: IngestPorts) async -> OriginReply {
        let client = HTTPClient(timeout: .seconds(2))
        for candidate in ring.nodes(for: key) {
            if candidate.url == node { return ingest(key: key, node: node, ports: ports) }
            guard let url = HTTPLocation(candidate.url + "/api/ingest/" + key),
                let answer = try? await client.request("GET", url, headers: [(ClusterRelay.relayHeader, node)]),
                answer.status == 200
            else { continue }
            return OriginReply(status: 200, headers: jsonHeaders, body: answer.body)
        }
        return ingest(key: key, node: node, ports: ports)
    }

    static let jsonHeaders: [(name: String, value: String)] = [
        ("Content-Type", "application/json"), ("Cache-Control", "no-cache"), ("Access-Control-Allow-Origin", "*"),
    ]

    static func json(_ status: Int, _ value: some Encodable) -> OriginReply {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return OriginReply(status: status, headers: jsonHeaders, body: Array(body))
    }
}
