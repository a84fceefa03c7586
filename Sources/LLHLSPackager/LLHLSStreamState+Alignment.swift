import MediaCore

/// A muxed part waiting for the slower renditions before it is listed.
struct HeldPart: Sendable {
    /// Rendition name.
    var name: String
    /// The part.
    var part: MuxedPart
    /// End of the part on the stream timeline, 90 kHz.
    var end: Int64
    /// When it was muxed (the hold never lasts longer than `alignmentLimit`).
    var queuedAt: ContinuousClock.Instant
}

/// Lists parts of every rendition in step: the source's parts wait for the transcoded rungs, so
/// rendition reports agree within a part (checklist R3) and a level switch finds its part published.
extension LLHLSStreamState {
    /// Longest a part waits for a rendition that fell behind (a stalled rung must not stall the stream).
    static let alignmentLimit: Duration = .milliseconds(1_500)
    /// How far (media time) a rung may trail the leading rendition before it stops holding the others back: past
    /// normal encode jitter on a busy machine, well short of `alignmentLimit` per part.
    static let lagLimit: Duration = .seconds(1)

    /// Hands muxed parts to the alignment queue and lists whatever is now in step.
    mutating func publish(_ parts: [MuxedPart], name: String, now: ContinuousClock.Instant) {
        guard !parts.isEmpty, let p = pipeline(named: name) else { return }
        for part in parts {
            let end = MediaTime(value: part.startDTS + part.duration, timescale: p.timescale).converted(to: 90_000)
                .value
            producedEnd[name] = max(producedEnd[name] ?? end, end)
            heldParts.append(HeldPart(name: name, part: part, end: end, queuedAt: now))
        }
        releaseAligned(now: now, force: false)
    }

    /// Lists held parts that every active rendition has reached (or that waited too long, or all when forced).
    mutating func releaseAligned(now: ContinuousClock.Instant, force: Bool) {
        guard !heldParts.isEmpty else { return }
        // Within most of a part counts as in step: audio and video parts end at different instants.
        let tolerance = Int64(partTargetSeconds * 90_000 * 0.75)
        // Video renditions set the pace; audio trails video by design and never holds it back.
        let active = pipelineNames.filter { name in
            if name == "audio" { return video == nil }
            guard rungs[name] != nil else { return true }
            return activeRungs.contains(name)
        }
        // A rung more than `lagLimit` behind the leader (its encoder cannot keep up) no longer holds the others:
        // the passthrough and the rungs in step keep their latency; it rejoins the pace once back within a part.
        let lead = active.compactMap { producedEnd[$0] }.max() ?? Int64.min
        let lagTicks = Int64(Self.lagLimit.secondsDouble * 90_000)
        for name in active where rungs[name] != nil {
            let end = producedEnd[name] ?? Int64.min
            if end < lead - lagTicks {
                laggingRungs.insert(name)
            } else if end >= lead - tolerance {
                laggingRungs.remove(name)
            }
        }
        let slowest =
            active.filter { !laggingRungs.contains($0) && !behindRungs.contains($0) }.map {
                producedEnd[$0] ?? Int64.min
            }
            .min() ?? Int64.max
        var blocked: Set<String> = []
        var kept: [HeldPart] = []
        for held in heldParts {
            let ready = force || (held.end <= slowest + tolerance) || now - held.queuedAt >= Self.alignmentLimit
            // Parts of one rendition stay in order: once one waits, the later ones wait too.
            if ready && !blocked.contains(held.name) {
                commit(held.part, name: held.name, now: now)
            } else {
                blocked.insert(held.name)
                kept.append(held)
            }
        }
        heldParts = kept
    }

    /// Lists one part in its rendition's playlist.
    private mutating func commit(_ part: MuxedPart, name: String, now: ContinuousClock.Instant) {
        guard var p = pipeline(named: name) else { return }
        let pdt = timeline.programDateTime(ticks: part.startDTS, timescale: p.timescale)
        p.rendition.append(part, initIndex: sessionIndex, programDateTime: pdt, now: now)
        // A shed rung fed again is listed from its first new part on (+Shedding).
        returningRungs.remove(name)
        recordPublished(part, name: name, now: now)
        p.rendition.trim(window: config.windowSegments, retainedAfter: config.retainedSegmentsAfterWindow)
        setPipeline(named: name, p)
        version += 1
    }
}
