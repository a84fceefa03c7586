import NIOCore
import Testing

@testable import ClusterRelay

/// The relay's cache as a value, time given by hand: a fresh copy is a hit with its age, an expired one is dropped,
/// a fetch in flight is joined, and a full cache makes room by dropping expired copies first.
@Suite("Relay cache")
struct RelayCacheTests {
    static let t0 = ContinuousClock.now
    static let answer = RelayedResponse(status: 200, headers: [("Cache-Control", "max-age=6")], body: ByteBuffer())

    @Test func keptCopyIsAHitUntilItsLifetimeEnds() {
        var cache = RelayCache(capacity: 8)
        guard case .miss = cache.lookup("/a", now: Self.t0) else {
            Issue.record("empty cache hit")
            return
        }
        let task = Task<RelayedResponse?, Never> { nil }
        cache.started("/a", task)
        guard case .join = cache.lookup("/a", now: Self.t0) else {
            Issue.record("in-flight fetch not joined")
            return
        }
        cache.finished("/a", Self.answer, lifetime: .seconds(6), now: Self.t0)
        guard case .hit(_, let age) = cache.lookup("/a", now: Self.t0 + .seconds(2)) else {
            Issue.record("fresh copy missed")
            return
        }
        #expect(age == .seconds(2))
        guard case .miss = cache.lookup("/a", now: Self.t0 + .seconds(6)) else {
            Issue.record("expired copy served")
            return
        }
        #expect(cache.entries.isEmpty)
    }

    @Test func answersNotToBeKeptAndFailuresAreNotKept() {
        var cache = RelayCache(capacity: 8)
        cache.finished("/no-cache", Self.answer, lifetime: .zero, now: Self.t0)
        cache.finished("/failed", nil, lifetime: .seconds(6), now: Self.t0)
        #expect(cache.entries.isEmpty && cache.inFlight.isEmpty)
    }

    @Test func fullCacheDropsExpiredCopiesFirst() {
        var cache = RelayCache(capacity: 4)
        for i in 0..<3 { cache.finished("/old\(i)", Self.answer, lifetime: .seconds(1), now: Self.t0) }
        cache.finished("/young", Self.answer, lifetime: .seconds(60), now: Self.t0)
        cache.finished("/new", Self.answer, lifetime: .seconds(60), now: Self.t0 + .seconds(5))
        #expect(Set(cache.entries.keys) == ["/young", "/new"])
    }
}
