import Synchronization

/// Requests parked on a stream without a task each (the origin's fast path), grouped by what they ask: a change
/// checks each group once, and every waiter of a group that became answerable gets the one answer built for it.
final class ParkedRequests: Sendable {
    /// What a group asks for; requests with equal keys get equal answers.
    enum Key: Hashable, Sendable {
        /// A media playlist with its delivery directives.
        case playlist(rendition: String, request: PlaylistRequest)
        /// A media file (`{epoch}/{rendition}/{file}`).
        case media(epoch: String, rendition: String, file: String)
    }

    /// One parked request.
    struct Waiter: Sendable {
        /// Unique on this stream.
        let id: UInt64
        /// When it stops waiting and gets its time-out answer.
        let deadline: ContinuousClock.Instant
        /// Where its answer goes.
        let deliver: @Sendable (SharedResponse) -> Void
    }

    private struct State {
        var version: UInt64 = 0
        var nextID: UInt64 = 0
        var groups: [Key: [Waiter]] = [:]
        var count = 0
        var checks = 0
    }

    private let state = Mutex(State())

    /// Changes seen so far: take it before checking a request, park past it.
    var version: UInt64 { state.withLock { $0.version } }

    /// Requests parked now.
    var count: Int { state.withLock { $0.count } }

    /// Group checks made by changes so far (one per group per change, however many wait in it).
    var checks: Int { state.withLock { $0.checks } }

    /// Parks a request under `key` unless a change came since `seen` (nil: check again, it may be answerable now).
    func park(
        _ key: Key,
        deadline: ContinuousClock.Instant,
        seen: UInt64,
        deliver: @escaping @Sendable (SharedResponse) -> Void
    ) -> UInt64? {
        state.withLock { s in
            guard s.version == seen else { return nil }
            s.nextID += 1
            s.groups[key, default: []].append(Waiter(id: s.nextID, deadline: deadline, deliver: deliver))
            s.count += 1
            return s.nextID
        }
    }

    /// A change happened: takes every group out for one check each (`restore` puts back those still waiting).
    func takeAll() -> [Key: [Waiter]] {
        state.withLock { s in
            s.version &+= 1
            s.checks += s.groups.count
            defer {
                s.groups = [:]
                s.count = 0
            }
            return s.groups
        }
    }

    /// Puts back a group that is still waiting; returns the waiters whose deadline passed meanwhile (to answer now).
    func restore(_ key: Key, _ waiters: [Waiter]) -> [Waiter] {
        state.withLock { s in
            // Read under the lock: a time-out that missed the waiter while it was taken out ran before this instant.
            let now = ContinuousClock.now
            let waiting = waiters.filter { $0.deadline > now }
            if !waiting.isEmpty {
                s.groups[key, default: []].append(contentsOf: waiting)
                s.count += waiting.count
            }
            return waiters.filter { $0.deadline <= now }
        }
    }

    /// Takes one waiter out (its deadline passed); nil when it was answered or is being checked.
    func remove(_ key: Key, id: UInt64) -> Waiter? {
        state.withLock { s in
            guard var group = s.groups[key], let i = group.firstIndex(where: { $0.id == id }) else { return nil }
            let waiter = group.remove(at: i)
            s.groups[key] = group.isEmpty ? nil : group
            s.count -= 1
            return waiter
        }
    }
}
