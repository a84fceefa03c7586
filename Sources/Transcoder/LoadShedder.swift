/// One rung as the shedder weighs it.
struct ShedRung: Sendable, Hashable {
    /// Rendition name.
    var name: String
    /// Output pixels per picture: the rung's share of the ladder's encode cost.
    var pixels: Int
    /// The top rendition (a rung at the source size replacing the passthrough): never dropped.
    var isTop = false
}

/// The ladder's queues at one moment, as the decoder thread sees them.
struct LadderLoad: Sendable, Equatable {
    /// Fed rungs whose input queue is over its bound, or that skip to their next IDR after overflowing it.
    var behind: [String] = []
    /// The decoder's own queue is over its bound (decoding itself is short of CPU).
    var decoderBehind = false
    /// Every fed rung's queue and the decoder's are low (a quarter of the bound) and no rung skips.
    var calm = false
}

/// One step of load shedding (or of its undoing).
enum ShedAction: Sendable, Hashable {
    /// The rung encodes with a faster x264 preset.
    case fasterPreset(rung: String, preset: String)
    /// The rung is back on the configured preset.
    case normalPreset(rung: String, preset: String)
    /// The rung is no longer encoded and leaves the multivariant.
    case drop(rung: String)
    /// The rung is encoded again and rejoins the multivariant at its next IDR.
    case restore(rung: String)
    /// Still behind with nothing left to shed (said once until a step is undone).
    case exhausted
}

/// Why a step was taken.
enum ShedCause: Sendable, Hashable {
    /// A rung's queue (or, with nil, the decoder's) stayed behind for the policy's patience.
    case behind(rung: String?, for: Duration)
    /// Every queue stayed low this long.
    case calm(for: Duration)
}

/// The ladder's load-shedding decisions, as a value: fed a `LadderLoad` after every decoded batch, it returns the
/// steps to take (see `LoadSheddingPolicy` for the order). The lowest-value rung is the most expensive transcoded rung
/// that is neither the top rendition nor the ladder's lowest: the passthrough (or top rung) still serves the high
/// bit rates, and the lowest rung is the only one left for slow networks, so dropping a middle rung costs viewers
/// the least while freeing the most CPU. The lowest rung goes last, when it cannot keep up alone either (then the
/// source is no longer decoded at all); the top rendition always stays.
struct LoadShedder: Sendable {
    /// What a rung does now.
    enum Mode: Sendable, Hashable {
        case normal, fast, dropped
    }

    let policy: LoadSheddingPolicy
    /// The configured preset, restored on undo.
    let normalPreset: String
    private(set) var rungs: [ShedRung]
    private(set) var modes: [String: Mode] = [:]
    /// Steps taken, undone last-first.
    private var taken: [ShedAction] = []
    private var behindSince: ContinuousClock.Instant?
    private var calmSince: ContinuousClock.Instant?
    private var lastUndo: ContinuousClock.Instant?
    private var saidExhausted = false
    /// The calm time needed before the next undo (doubles when load returns soon after one).
    private(set) var recoveryWait: Duration

    /// The steps in force and the recovery wait, for a stream's next session (see `ShedMemory`).
    struct Memory: Sendable, Equatable {
        /// Steps in force, in the order taken.
        var steps: [ShedAction]
        /// The calm time the next undo needs.
        var recoveryWait: Duration
    }

    /// A shedder for `rungs` encoded with `normalPreset`; with `remembering`, the previous session's steps are in force
    /// from the start (those naming a rung this ladder has), to be carried out once (`inForce`).
    init(rungs: [ShedRung], normalPreset: String, policy: LoadSheddingPolicy, remembering: Memory? = nil) {
        self.rungs = []
        self.normalPreset = normalPreset
        self.policy = policy
        recoveryWait = policy.recovery
        for rung in rungs { add(rung) }
        guard policy.enabled, let remembering else { return }
        for step in remembering.steps where modes[Self.rung(of: step) ?? ""] != nil {
            if case .fasterPreset(let rung, _) = step, policy.fastPreset == nil || modes[rung] != .normal { continue }
            apply(step)
            taken.append(step)
        }
        recoveryWait = max(policy.recovery, min(remembering.recoveryWait, policy.maxRecovery))
    }

    /// The steps in force now, in the order taken (a new ladder carries out the ones it inherited).
    var inForce: [ShedAction] { taken }

    /// What to hand the stream's next session.
    var memory: Memory { Memory(steps: taken, recoveryWait: recoveryWait) }

    /// The rung a step names.
    private static func rung(of step: ShedAction) -> String? {
        switch step {
        case .fasterPreset(let r, _), .normalPreset(let r, _), .drop(let r), .restore(let r): r
        case .exhausted: nil
        }
    }

    /// A rung joined the running ladder.
    mutating func add(_ rung: ShedRung) {
        guard modes[rung.name] == nil else { return }
        rungs.append(rung)
        modes[rung.name] = .normal
    }

    /// Rungs not encoded now.
    var dropped: Set<String> { Set(modes.filter { $0.value == .dropped }.keys) }

    /// True while any step is in force.
    var isShedding: Bool { !taken.isEmpty }

    /// The steps to take now for `load`.
    mutating func observe(_ load: LadderLoad, now: ContinuousClock.Instant) -> [(ShedAction, ShedCause)] {
        guard policy.enabled else { return [] }
        if !load.behind.isEmpty || load.decoderBehind {
            calmSince = nil
            let since = behindSince ?? now
            behindSince = since
            guard now - since >= policy.patience else { return [] }
            // The next step waits out the patience again, so each one gets time to show its effect.
            behindSince = now
            let trigger = mostExpensive(load.behind)
            let cause = ShedCause.behind(rung: trigger, for: now - since)
            guard let step = nextStep(trigger: trigger) else {
                if saidExhausted { return [] }
                saidExhausted = true
                return [(.exhausted, cause)]
            }
            // Load back within the longest recovery of an undo: that undo was early, the next one waits longer.
            if let undone = lastUndo, now - undone <= policy.maxRecovery {
                recoveryWait = min(recoveryWait * 2, policy.maxRecovery)
            }
            apply(step)
            taken.append(step)
            return [(step, cause)]
        }
        behindSince = nil
        guard load.calm else {
            calmSince = nil
            return []
        }
        let since = calmSince ?? now
        calmSince = since
        guard let last = taken.last else {
            // Long calm with nothing shed: the next overload starts from the configured recovery again.
            if now - since >= policy.maxRecovery {
                recoveryWait = policy.recovery
                lastUndo = nil
            }
            return []
        }
        guard now - since >= recoveryWait else { return [] }
        taken.removeLast()
        calmSince = now
        lastUndo = now
        saidExhausted = false
        let undo = inverse(of: last)
        apply(undo)
        return [(undo, .calm(for: now - since))]
    }

    /// The rung in `names` with the most pixels (ties: first named).
    private func mostExpensive(_ names: [String]) -> String? {
        names.compactMap { n in rungs.first { $0.name == n } }.max { $0.pixels < $1.pixels }?.name
    }

    /// The behind rung's faster preset; else (decoder behind) the most expensive rung's; else drop the lowest-value one.
    private func nextStep(trigger: String?) -> ShedAction? {
        if let fast = policy.fastPreset, fast != normalPreset {
            let candidate =
                trigger.map { [$0] }
                ?? rungs.filter { modes[$0.name] == .normal }.sorted { $0.pixels > $1.pixels }.map(\.name)
            if let name = candidate.first, modes[name] == .normal { return .fasterPreset(rung: name, preset: fast) }
        }
        let lowest = rungs.filter { !$0.isTop }.min { $0.pixels < $1.pixels }
        let droppable = rungs.filter { !$0.isTop && modes[$0.name] != .dropped }
        // Middle rungs first, most expensive first; the lowest rung only when nothing else is left.
        let middle = droppable.filter { $0.name != lowest?.name }.max { $0.pixels < $1.pixels }
        return (middle ?? droppable.first).map { .drop(rung: $0.name) }
    }

    private func inverse(of step: ShedAction) -> ShedAction {
        switch step {
        case .fasterPreset(let rung, _): .normalPreset(rung: rung, preset: normalPreset)
        case .drop(let rung): .restore(rung: rung)
        case .normalPreset, .restore, .exhausted: step
        }
    }

    private mutating func apply(_ step: ShedAction) {
        switch step {
        case .fasterPreset(let rung, _): modes[rung] = .fast
        case .normalPreset(let rung, _): modes[rung] = .normal
        case .drop(let rung): modes[rung] = .dropped
        case .restore(let rung):
            // It keeps the faster preset if that step is still in force.
            let fast = taken.contains { if case .fasterPreset(rung, _) = $0 { true } else { false } }
            modes[rung] = fast ? .fast : .normal
        case .exhausted: break
        }
    }
}
