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
    ) -> QueueState {
        if refusedTotal > (refused[name] ?? 0) { lastRefusal[name] = now }
        refused[name] = refusedTotal
        let recent = lastRefusal[name].map { now - $0 < memory } ?? false
        let trouble = skipping || recent
        return QueueState(
            behind: depth > capacity / 2 || trouble,
            low: depth <= capacity / 4 && !trouble,
            lagging: depth > Self.laggingDepth || trouble,
            drained: depth <= 1 && !trouble
        )
    }

    /// Pictures queued past which a rung makes the renditions listed in step with it wait (67 ms at 60 fps, 133 ms at
    /// 30 fps, on top of its encode time): the packager then stops waiting for it.
    static let laggingDepth = 4
}

/// One queue as the gauge reads it: for the shedder (`behind`, `low`) and for the packager's waiting (`lagging`,
/// `drained`), each pair with a band between so neither flips on every picture.
struct QueueState: Sendable, Equatable {
    /// Over half full, skipping to the next IDR, or refused recently: counts towards shedding.
    var behind: Bool
    /// At most a quarter full and no trouble: counts towards recovery.
    var low: Bool
    /// More than `laggingDepth` pictures queued, or trouble: nothing should wait for this rung.
    var lagging: Bool
    /// At most one picture queued and no trouble: renditions may wait for it again.
    var drained: Bool
}
