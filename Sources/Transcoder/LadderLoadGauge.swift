/// Reads the ladder's queues into a `LadderLoad`. A queue is behind while over half full, while its rung skips to its
/// next IDR, and for `memory` after it last refused an element: an overflowing queue drains while its reader skips
/// ahead, and must not look healthy for that moment, or sustained overload would never look sustained.
struct LadderLoadGauge {
    /// How long a refusal keeps its queue counted as behind (the shedder's patience).
    let memory: Duration
    private var refused: [String: Int] = [:]
    private var lastRefusal: [String: ContinuousClock.Instant] = [:]
    /// Rungs last reported behind (to the packager), so each change is reported once.
    private var flagged: Set<String> = []

    /// Marks `rung` behind; true when that is news.
    mutating func flagBehind(_ rung: String) -> Bool { flagged.insert(rung).inserted }

    /// Marks `rung` keeping up; true when that is news.
    mutating func clearBehind(_ rung: String) -> Bool { flagged.remove(rung) != nil }

    /// A gauge remembering refusals for `memory`.
    init(memory: Duration) { self.memory = memory }

    /// One queue's state: `depth` of `capacity`, `refusedTotal` refusals so far, `skipping` to the next IDR.
    mutating func behind(
        _ name: String,
        depth: Int,
        capacity: Int,
        refusedTotal: Int,
        skipping: Bool = false,
        now: ContinuousClock.Instant
    ) -> (behind: Bool, low: Bool) {
        if refusedTotal > (refused[name] ?? 0) { lastRefusal[name] = now }
        refused[name] = refusedTotal
        let recent = lastRefusal[name].map { now - $0 < memory } ?? false
        return (depth > capacity / 2 || skipping || recent, depth <= capacity / 4 && !skipping && !recent)
    }
}
