import Testing

@testable import ClusterRelay

/// The shard ring routes a key where Varnish's `directors.shard()` does. Golden table: the first node of each key was
/// read from Debian's varnishd 7.1 running Config/varnish-cluster.vcl (60 of 60 keys agreed; the e2e test checks it
/// again on every run); the rest is the walk along the circle.
@Suite("Shard ring")
struct ShardRingTests {
    static let ring = ShardRing(
        nodes: (1...3).map { ShardRing.Node(name: "origin_\($0)", url: "http://127.0.0.1:808\($0)") }
    )

    @Test(arguments: [
        ("cam", ["origin_3", "origin_1", "origin_2"]),
        ("e2e-cluster-0", ["origin_3", "origin_1", "origin_2"]),
        ("e2e-cluster-3", ["origin_2", "origin_1", "origin_3"]),
        ("demo", ["origin_2", "origin_3", "origin_1"]),
        ("k1", ["origin_1", "origin_2", "origin_3"]),
        ("k2", ["origin_3", "origin_2", "origin_1"]),
    ])
    func keyGoesWhereVarnishSendsIt(_ key: String, _ order: [String]) {
        #expect(Self.ring.nodes(for: key).map(\.name) == order)
    }

    @Test func hashIsTheLastFourBytesOfSHA256LittleEndian() {
        #expect(ShardRing.hash("origin_10") == 0xD2BF_7CB5)
    }

    @Test func emptyRingRoutesNowhere() {
        #expect(ShardRing(nodes: []).nodes(for: "cam").isEmpty)
    }
}
