import MediaCore

/// The node an edge's Varnish `directors.shard()` routes a stream key to, computed the way vmod_directors does
/// (https://varnish-cache.org/docs/7.1/reference/vmod_directors.html#directors-shard), so `/api/ingest/{key}` asked
/// of any origin names the origin the edge sends the key's viewers to.
///
/// Each backend puts `replicas` points on a circle, point `j` being the hash of its name followed by `j` in decimal;
/// `shard.key(KEY)` hashes the key the same way, and the key belongs to the first point at or after it (keys past the
/// last point belong to the last one, as the director's lookup has it). The hash is the last four bytes of the
/// string's SHA-256, read little-endian (checked against Debian's varnishd 7.1 in Tests/e2e/test_cluster.py).
public struct ShardRing: Sendable, Equatable {
    /// One backend: its name in the VCL and the node URL it points at.
    public struct Node: Sendable, Equatable {
        public var name: String
        public var url: String

        /// A backend called `name` (the VCL's `backend` name) for the node at `url`.
        public init(name: String, url: String) {
            self.name = name
            self.url = url
        }
    }

    /// The backends, in any order.
    public let nodes: [Node]
    /// The circle: (point, index into `nodes`), sorted by point.
    private let points: [(point: UInt32, node: Int)]

    /// The ring of `nodes` with the director's default 67 replicas each.
    public init(nodes: [Node], replicas: Int = 67) {
        self.nodes = nodes
        points = nodes.enumerated().flatMap { i, node in
            (0..<replicas).map { j in (Self.hash(node.name + String(j)), i) }
        }
        .sorted { $0.point < $1.point }
    }

    /// The nodes in the order the director tries them for `key`: its own first, then the next distinct ones along
    /// the circle (the `alt` backends, used while one is sick).
    public func nodes(for key: String) -> [Node] {
        guard !points.isEmpty else { return [] }
        let k = Self.hash(key)
        let start = min(points.firstIndex { $0.point >= k } ?? points.count - 1, points.count - 1)
        var order: [Int] = []
        for offset in 0..<points.count where order.count < nodes.count {
            let node = points[(start + offset) % points.count].node
            if !order.contains(node) { order.append(node) }
        }
        return order.map { nodes[$0] }
    }

    /// The last four bytes of SHA-256(`text`), little-endian.
    static func hash(_ text: String) -> UInt32 {
        let digest = MessageDigest.hash(.sha256, Array(text.utf8))
        return digest.suffix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    public static func == (a: ShardRing, b: ShardRing) -> Bool { a.nodes == b.nodes }
}
