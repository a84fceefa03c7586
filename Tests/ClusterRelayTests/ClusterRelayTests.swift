import HTTPClient
import MediaCore
import NIOCore
import Synchronization
import Testing

@testable import ClusterRelay

/// The relay over a stand-in owner (`fetch`): one fetch per path however many viewers wait, copies kept as the
/// owner's `Cache-Control` allows, no relay to itself, an unreachable owner answered as not live.
@Suite("Cluster relay")
struct ClusterRelayTests {
    /// The stand-in owner: counts fetches per target and answers after `delay`.
    final class Owner: Sendable {
        let fetched = Mutex<[String: Int]>([:])
        let cacheControl: String
        let delay: Duration
        let fails: Bool

        init(
            cacheControl: String = "public, max-age=6, immutable",
            delay: Duration = .milliseconds(50),
            fails: Bool = false
        ) {
            self.cacheControl = cacheControl
            self.delay = delay
            self.fails = fails
        }

        func fetch(_ owner: HTTPLocation, _ target: String) async throws(ClusterRelayError) -> RelayedResponse {
            fetched.withLock { $0[target, default: 0] += 1 }
            try? await Task.sleep(for: delay)
            if fails { throw .ownerUnreachable(owner: owner.origin, target: target, .connectionClosed(url: target)) }
            return RelayedResponse(
                status: 200,
                headers: [("Content-Type", "video/mp4"), ("Cache-Control", cacheControl)],
                body: ByteBuffer(string: target)
            )
        }

        func count(_ target: String) -> Int { fetched.withLock { $0[target, default: 0] } }
    }

    static let key = StreamKey("cam")!

    static func relay(_ owner: Owner, holder: String? = "http://127.0.0.1:9002") -> ClusterRelay {
        ClusterRelay(
            configuration: .init(nodeURL: "http://127.0.0.1:9001"),
            lookup: { _ in holder },
            fetch: { location, target in try await owner.fetch(location, target) }
        )
    }

    @Test func viewersWaitingForOnePartShareOneFetch() async {
        let owner = Owner()
        let relay = Self.relay(owner)
        let target = "/live/cam/e1/video/7.2.m4s"
        let statuses = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<20 { group.addTask { await relay.answer(key: Self.key, target: target)?.status } }
            return await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 20))
        #expect(owner.count(target) == 1)
        // Later viewers get the kept copy, with its age.
        let later = await relay.answer(key: Self.key, target: target)
        #expect(later?.header("Age") == "0")
        #expect(later?.header("Cache-Control") == "public, max-age=6, immutable")
        #expect(owner.count(target) == 1)
        #expect(relay.stats.joined == 19 && relay.stats.cacheHits == 1)
        #expect(
            relay.stats.fetches == 1 && relay.stats.repeatedPartFetches == 0 && relay.stats.partFetches == 1
                && relay.stats.requests == 21
        )
    }

    @Test func answerTheOwnerMarksNoCacheIsFetchedAgain() async {
        let owner = Owner(cacheControl: "no-cache", delay: .zero)
        let relay = Self.relay(owner)
        let target = "/live/cam/video.m3u8?_HLS_msn=9"
        _ = await relay.answer(key: Self.key, target: target)
        _ = await relay.answer(key: Self.key, target: target)
        #expect(owner.count(target) == 2)
    }

    @Test func keyHeldByThisNodeOrNobodyIsNotRelayed() async {
        let owner = Owner()
        #expect(
            await Self.relay(owner, holder: "http://127.0.0.1:9001").answer(
                key: Self.key,
                target: "/live/cam/index.m3u8"
            ) == nil
        )
        #expect(await Self.relay(owner, holder: nil).answer(key: Self.key, target: "/live/cam/index.m3u8") == nil)
        #expect(owner.fetched.withLock { $0.isEmpty })
    }

    @Test func unreachableOwnerIsAnsweredAsNotLive() async {
        let owner = Owner(fails: true)
        let relay = Self.relay(owner)
        #expect(await relay.answer(key: Self.key, target: "/live/cam/index.m3u8") == nil)
        #expect(relay.stats.failures == 1)
    }

    @Test(
        arguments: [
            ("public, max-age=6, immutable", 6),
            ("public, max-age=0, s-maxage=1", 1),
            ("no-cache", 0),
            ("public, max-age=86400", 30),
            (nil, 0),
        ] as [(String?, Int)]
    )
    func sharedCacheLifetimeFollowsCacheControl(_ field: String?, _ seconds: Int) {
        #expect(CacheLifetime.of(field, cap: .seconds(30)) == .seconds(seconds))
    }
}

extension RelayedResponse: Equatable {
    public static func == (a: RelayedResponse, b: RelayedResponse) -> Bool {
        a.status == b.status && a.body == b.body
            && a.headers.map { [$0.name, $0.value] } == b.headers.map { [$0.name, $0.value] }
    }
}
