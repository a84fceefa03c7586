import MediaCore

/// A muxed part waiting for the slower renditions before it is listed.
struct HeldPart: Sendable {
    /// Rendition name.
    var name: String
    /// The part.
    var part: MuxedPart
    /// End of the part on the stream timeline.
    var end: MediaTime
    /// When it was muxed (the hold never lasts longer than `alignmentLimit`).
    var queuedAt: ContinuousClock.Instant
}

/// Lists parts of every rendition in step: the source's parts wait for the transcoded rungs, so rendition reports
/// agree within a part (checklist R3) and a level switch finds its part published. A value fed muxed parts that
/// returns the ones to list.
struct RungAligner: Sendable {
    /// Longest a part waits for a rendition that fell behind (a stalled rung must not stall the stream).
    static let alignmentLimit: Duration = .milliseconds(1_500)
    /// How far (media time) a rung may trail the leading rendition before it stops holding the others back: past
    /// normal encode jitter on a busy machine, well short of `alignmentLimit` per part.
    static let lagLimit: Duration = .seconds(1)

    /// Parts muxed but not yet listed, oldest first.
    private(set) var held: [HeldPart] = []
    /// End of the last listed part per rendition, on the stream timeline.
    private(set) var listedEnd: [String: MediaTime] = [:]
    /// End of the last muxed part per rendition, on the stream timeline.
    private(set) var producedEnd: [String: MediaTime] = [:]
    /// Rungs trailing the leader by more than `lagLimit`: listed as they come, without holding the others.
    private(set) var lagging: Set<String> = []
    /// Renditions that muxed a part on this timeline: only those are reported behind (`rungFellBehind`), since a rung
    /// without one is still starting its encoder, which is no news for an operator.
    private(set) var started: Set<String> = []
    /// Lagging rungs reported (`rungFellBehind`), so their catching up is reported too.
    private(set) var reportedBehind: Set<String> = []

    /// Queues a rendition's muxed part.
    mutating func hold(_ part: MuxedPart, name: String, timescale: Int32, now: ContinuousClock.Instant) {
        let end = MediaTime(value: part.startDTS + part.duration, timescale: timescale).converted(to: 90_000)
        producedEnd[name] = max(producedEnd[name] ?? end, end)
        started.insert(name)
        held.append(HeldPart(name: name, part: part, end: end, queuedAt: now))
    }

    /// A new timeline: no rung lags behind it yet, and each starts its encoder again.
    mutating func restart() {
        listedEnd = [:]
        lagging = []
        started = []
        reportedBehind = []
    }

    /// Takes the held parts every pacing rendition has reached (within `tolerance`), that waited too long, or all when
    /// `force`; `pacing` are the renditions that set the pace, `rungs` those of them that may fall behind, and
    /// `trailing` those listed only as far as every pacing rendition in step is listed (audio beside video).
    mutating func release(
        pacing: [String],
        rungs: Set<String>,
        trailing: Set<String> = [],
        tolerance: MediaTime,
        now: ContinuousClock.Instant,
        force: Bool
    ) -> (ready: [HeldPart], events: [PackagerEvent]) {
        guard !held.isEmpty else { return ([], []) }
        let events = updateLagging(pacing: pacing, rungs: rungs, tolerance: tolerance)
        // The slowest rendition in step; nil (no bound) when none is, and a rendition without parts bounds at -∞.
        let inStep = pacing.filter { !lagging.contains($0) }
        let slowest = Self.earliest(inStep, producedEnd)
        var ready = take(where: { !trailing.contains($0.name) }, bound: slowest, tolerance: tolerance, now, force)
        for part in ready { listedEnd[part.name] = max(listedEnd[part.name] ?? part.end, part.end) }
        // Audio past video's listed edge is cut off by hls.js 1.6 as it sets MediaSource.duration (hls.js#7321).
        let ticks = Int64(CutPolicy.audioShortOfVideo.secondsDouble * 90_000)
        let short = MediaTime(value: -ticks, timescale: 90_000)
        ready += take(
            where: { trailing.contains($0.name) },
            bound: Self.earliest(inStep, listedEnd),
            tolerance: short,
            now,
            force
        )
        return (ready, events)
    }

    /// The earliest of `ends` over `names`: nil (no bound) when `names` is empty, .some(nil) when one has no end yet.
    private static func earliest(_ names: [String], _ ends: [String: MediaTime]) -> MediaTime?? {
        names.isEmpty ? nil : .some(names.map { ends[$0] }.min(by: earlier)!)
    }

    /// Removes and returns the held parts matching `include` that reached `bound` (nil: no bound; .some(nil): none
    /// reached), waited `alignmentLimit`, or all when `force`; a rendition's parts leave in order.
    private mutating func take(
        where include: (HeldPart) -> Bool,
        bound: MediaTime??,
        tolerance: MediaTime,
        _ now: ContinuousClock.Instant,
        _ force: Bool
    ) -> [HeldPart] {
        var blocked: Set<String> = []
        var kept: [HeldPart] = []
        var ready: [HeldPart] = []
        for part in held {
            guard include(part) else {
                kept.append(part)
                continue
            }
            let reached =
                switch bound {
                case .none: true
                case .some(.none): false
                case .some(.some(let s)): part.end <= s + tolerance
                }
            let due = force || reached || now - part.queuedAt >= Self.alignmentLimit
            // Parts of one rendition stay in order: once one waits, the later ones wait too.
            if due && !blocked.contains(part.name) {
                ready.append(part)
            } else {
                blocked.insert(part.name)
                kept.append(part)
            }
        }
        held = kept
        return ready
    }

    /// A rung more than `lagLimit` behind the leader (its encoder cannot keep up) no longer holds the others: the
    /// passthrough and the rungs in step keep their latency; it rejoins the pace once back within a part. A rung
    /// without a part on this timeline lags too (nobody waits for an encoder starting), but only one that has muxed
    /// a part is reported: a start-up is not a warning.
    private mutating func updateLagging(
        pacing: [String],
        rungs: Set<String>,
        tolerance: MediaTime
    ) -> [PackagerEvent] {
        guard let lead = pacing.compactMap({ producedEnd[$0] }).max() else { return [] }
        let lag = MediaTime(value: Int64(Self.lagLimit.secondsDouble * 90_000), timescale: 90_000)
        var events: [PackagerEvent] = []
        for name in pacing where rungs.contains(name) {
            let end = producedEnd[name]
            if end.map({ $0 < lead - lag }) ?? true {
                lagging.insert(name)
                if started.contains(name), reportedBehind.insert(name).inserted {
                    events.append(.rungFellBehind(name))
                }
            } else if let end, end >= lead - tolerance, lagging.remove(name) != nil,
                reportedBehind.remove(name) != nil
            {
                events.append(.rungCaughtUp(name))
            }
        }
        return events
    }

    /// Orders optional ends with nil (no part yet) first.
    private static func earlier(_ a: MediaTime?, _ b: MediaTime?) -> Bool {
        switch (a, b) {
        case (nil, .some): true
        case (.some(let x), .some(let y)): x < y
        default: false
        }
    }
}
