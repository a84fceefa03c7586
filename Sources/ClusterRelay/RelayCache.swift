/// The relay's shared state for one node as a value: fresh copies by owner and path, and the one fetch in flight per
/// path that every viewer asking meanwhile waits for. The relay carries out what `lookup` returns; time is a
/// parameter, so tests drive it without a clock.
struct RelayCache: Sendable {
    /// A kept response and when it stops being fresh.
    struct Entry: Sendable {
        var response: RelayedResponse
        var stored: ContinuousClock.Instant
        var expires: ContinuousClock.Instant
    }

    /// What a request for a path finds.
    enum Lookup: Sendable {
        /// A fresh copy, `age` old.
        case hit(RelayedResponse, age: Duration)
        /// A fetch of the path is in flight: wait for it.
        case join(Task<RelayedResponse?, Never>)
        /// Nothing: start a fetch and register it with `started`.
        case miss
    }

    /// Most kept responses; past it expired ones go first, then the soonest to expire.
    let capacity: Int
    private(set) var entries: [String: Entry] = [:]
    private(set) var inFlight: [String: Task<RelayedResponse?, Never>] = [:]

    init(capacity: Int) { self.capacity = capacity }

    /// What a request for `path` finds at `now` (an expired copy is dropped).
    mutating func lookup(_ path: String, now: ContinuousClock.Instant) -> Lookup {
        if let entry = entries[path] {
            if entry.expires > now { return .hit(entry.response, age: now - entry.stored) }
            entries[path] = nil
        }
        if let task = inFlight[path] { return .join(task) }
        return .miss
    }

    /// A fetch of `path` started; later requests join it.
    mutating func started(_ path: String, _ task: Task<RelayedResponse?, Never>) {
        inFlight[path] = task
    }

    /// The fetch of `path` ended with `response` (nil: it failed), to be kept for `lifetime` (zero: not kept).
    mutating func finished(
        _ path: String,
        _ response: RelayedResponse?,
        lifetime: Duration,
        now: ContinuousClock.Instant
    ) {
        inFlight[path] = nil
        guard let response, lifetime > .zero else { return }
        if entries.count >= capacity { evict(now: now) }
        entries[path] = Entry(response: response, stored: now, expires: now + lifetime)
    }

    /// Makes room: every expired entry, then (if still full) the quarter closest to expiring.
    private mutating func evict(now: ContinuousClock.Instant) {
        entries = entries.filter { $0.value.expires > now }
        guard entries.count >= capacity else { return }
        let doomed = entries.sorted { $0.value.expires < $1.value.expires }.prefix(max(1, capacity / 4))
        for (path, _) in doomed { entries[path] = nil }
    }
}
