import MediaCore
import Synchronization

/// The shed steps a stream's ladder had in force when its publisher left, kept for the next session of the same key:
/// a publisher that reconnects into the same overload starts shed instead of overloading the machine again for the
/// shedder's patience (and dropping frames meanwhile). Ignored once older than the policy's longest recovery wait.
final class ShedMemory: Sendable {
    /// What one ladder left in force, and when.
    private struct Entry {
        var state: LoadShedder.Memory
        var at: ContinuousClock.Instant
    }

    private let entries = Mutex<[StreamKey: Entry]>([:])

    init() {}

    /// Keeps `state` for `key` (or forgets it when nothing is in force); the ladder stores after every step, so what a
    /// reconnecting publisher's ladder finds does not depend on when the old ladder finished draining.
    func store(_ state: LoadShedder.Memory, for key: StreamKey, now: ContinuousClock.Instant = .now) {
        entries.withLock { $0[key] = state.steps.isEmpty ? nil : Entry(state: state, at: now) }
    }

    /// What `key`'s last ladder had in force, if its last step was no longer than `within` ago.
    func recall(_ key: StreamKey, within: Duration, now: ContinuousClock.Instant = .now) -> LoadShedder.Memory? {
        entries.withLock { e in
            guard let entry = e[key], now - entry.at <= within else { return nil }
            return entry.state
        }
    }
}
