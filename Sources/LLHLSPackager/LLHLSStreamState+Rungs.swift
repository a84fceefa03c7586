import FMP4
import MediaCore

/// Transcoded ladder rungs: video-only renditions on the source's timeline, cut by the same keyframe rule.
extension LLHLSStreamState {
    /// A rung's reader attached: says which publisher session it feeds (`rungAttached`), which its later calls pass as
    /// `session` so a transcoder still draining an earlier session does not write into the next one.
    @discardableResult
    mutating func attachRung(_ name: String) -> [PackagerEvent] {
        run { s in s.emit(.rungAttached(name, session: s.publisherSession)) }
    }

    /// Whether a rung call of publisher session `session` may still act (nil: the current one, as tests call).
    func isCurrent(session: Int?) -> Bool { session.map { $0 == publisherSession } ?? true }

    /// A rung's (new) parameters; a change starts a new init section at the current session.
    @discardableResult
    mutating func applyRung(
        _ name: String,
        description d: StreamDescription,
        session: Int? = nil,
        now: ClockReading
    ) -> [PackagerEvent] {
        run { s in
            guard let v = d.video, !s.isEnded, s.isCurrent(session: session) else { return }
            if let old = s.rungs[name] {
                if case .video(let o) = old.parameters, o == v { return }
                // The old encoder's last frames (it drained before the new parameters) end the old timeline.
                if old.finishingSession != nil {
                    s.releaseHeldRungFrames(all: true, now: now)
                    s.finishPreviousTimeline(name, now: now)
                }
                // List what the old encoder cut before its successor's frames arrive.
                s.flushMuxerBeforeDiscontinuity(name, now: now)
                s.rungs[name]?.rendition.pendingDiscontinuity = true
                s.rungs[name]?.parameters = .video(v)
                let muxer = s.makeRungMuxer()
                s.rungs[name]?.muxer = muxer
            } else {
                s.rungs[name] = TrackPipeline(
                    kind: .video,
                    timescale: 90_000,
                    muxer: s.makeRungMuxer(),
                    rendition: PublishedRendition(name: name, timescale: 90_000, continuing: s.continuation),
                    parameters: .video(v)
                )
            }
            s.rungs[name]?.active = false
            s.rungs[name]?.awaitingKeyframe = true
            s.rungs[name]?.installInit(session: s.sessionIndex)
            s.emit(.rungAnnounced(name))
        }
    }

    /// One encoded frame of a rung; held until the source video passed its time, so the source's cut is known.
    @discardableResult
    mutating func applyRung(
        _ name: String,
        frame: MediaFrame,
        session: Int? = nil,
        now: ClockReading
    ) -> [PackagerEvent] {
        run { s in
            guard !s.isEnded, s.isCurrent(session: session), s.rungs[name] != nil, frame.kind == .video,
                !s.withdrawnRungs.contains(name)
            else { return }
            s.rungs[name]?.heldFrames.append(frame)
            s.releaseHeldRungFrames(all: false, now: now)
        }
    }

    /// The hub dropped frames for this rung's reader: it restarts at its next aligned IDR.
    @discardableResult
    mutating func rungReaderDropped(_ name: String, session: Int? = nil) -> [PackagerEvent] {
        run { s in
            guard s.isCurrent(session: session) else { return }
            s.rungs[name]?.awaitingKeyframe = true
        }
    }

    /// The rung's publisher (the transcoder) stopped: close its open part and segment.
    @discardableResult
    mutating func rungLeft(_ name: String, session: Int? = nil, now: ClockReading) -> [PackagerEvent] {
        run { s in
            guard s.isCurrent(session: session) else { return }
            s.stopRung(name, now: now)
        }
    }

    /// Closes a rung's open part and segment; it restarts at its next aligned IDR.
    mutating func stopRung(_ name: String, now: ClockReading) {
        releaseHeldRungFrames(all: true, now: now)
        finishPreviousTimeline(name, now: now)
        rungs[name]?.active = false
        guard rungs[name] != nil else { return }
        flushMuxer(name, now: now)
        rungs[name]?.awaitingKeyframe = true
        emit(.rungStopped(name))
    }

    /// Packages held rung frames the source has passed (or all of them when the source stops); a transcoder far
    /// ahead of a stalled source (90 frames) is not held for ever.
    mutating func releaseHeldRungFrames(all: Bool, now: ClockReading) {
        for name in rungs.keys.sorted() {
            guard var p = rungs[name], !p.heldFrames.isEmpty else { continue }
            let released = p.releaseHeld(sourcePassed: lastVideoDTS, all: all, limit: 90)
            rungs[name] = p
            for f in released { startOrPushRung(f, name: name, now: now) }
        }
    }

    /// A rung starts at an IDR that opens a source segment, taking that segment's MSN (same MSN, same media time).
    private mutating func startOrPushRung(_ frame: MediaFrame, name: String, now: ClockReading) {
        if rungs[name]?.finishingSession != nil {
            // Before the new timeline's origin: the old timeline's tail (dropped after a hole, like any rung's).
            guard let origin = timeline.origin, frame.dts >= origin else {
                guard rungs[name]?.awaitingKeyframe == false, let previous = previousTimeline,
                    let time = previous.peek(frame, timescale: 90_000)
                else { return }
                pushRung(frame, at: time, name: name, now: now)
                return
            }
            finishPreviousTimeline(name, now: now)
        }
        guard var p = rungs[name] else { return }
        if p.awaitingKeyframe {
            guard frame.isKeyframe, let time = timeline.peek(frame, timescale: 90_000),
                let start = grid.start(near: time)
            else { return }
            p.awaitingKeyframe = false
            p.active = true
            // Made now, not at announcement: a rung announced before the source's description got the default part target.
            p.muxer = makeRungMuxer()
            // The source may be ahead (a rung's first frames come an encoder start-up late): the cuts it already made
            // after this start must reach the fresh muxer, or the rung misses them and its MSNs drift from the source's.
            for later in grid.starts where later.start > start.start {
                p.muxer.addBoundary(later.start.converted(to: 90_000).value)
            }
            if p.rendition.segments.isEmpty {
                p.rendition.nextMSN = max(p.rendition.nextMSN, start.msn)
            } else if p.rendition.nextMSN < start.msn {
                // Segments this rung missed (it fell behind) become EXT-X-GAP, so MSNs stay contiguous and aligned.
                let lengths = Dictionary(
                    (video?.rendition.segments ?? []).map {
                        ($0.msn, MediaTime(value: $0.duration, timescale: $0.timescale))
                    },
                    uniquingKeysWith: { a, _ in a }
                )
                fillGaps(&p, upTo: start.msn, lengths: lengths, now: now)
            }
            rungs[name] = p
            emit(.renditionStarted(name, msn: start.msn))
        }
        pushRung(frame, name: name, now: now)
    }

    /// Muxes one rung frame; a rung that skipped pictures (its encoder fell behind) ends its segment at the hole and
    /// rejoins at the next aligned IDR: a part never spans missing media (checklist P3, F4).
    private mutating func pushRung(_ frame: MediaFrame, name: String, now: ClockReading) {
        guard let time = timeline.map(frame, timescale: 90_000, fallback: now.wall) else { return }
        pushRung(frame, at: time, name: name, now: now)
    }

    /// Muxes one rung frame at `time` on the stream timeline.
    private mutating func pushRung(_ frame: MediaFrame, at time: MediaTime, name: String, now: ClockReading) {
        guard var p = rungs[name] else { return }
        let dts = time.value
        if let end = p.muxer.endDTS, p.muxer.lastDuration > 0, dts - end > 2 * p.muxer.lastDuration {
            flushMuxer(name, now: now)
            let fresh = makeRungMuxer()
            rungs[name]?.muxer = fresh
            rungs[name]?.awaitingKeyframe = true
            rungs[name]?.active = false
            startOrPushRung(frame, name: name, now: now)
            return
        }
        let sample = TrackSample(
            dts: dts,
            compositionOffset: Int32(clamping: frame.compositionOffset.converted(to: 90_000).value),
            isSync: frame.isKeyframe,
            data: frame.data,
            ingested: frame.stamps.readyForPackaging,
            capture: frame.stamps.capture
        )
        let parts = p.muxer.push(sample)
        rungs[name] = p
        publish(parts, name: name, now: now)
    }

    private func makeRungMuxer() -> RenditionMuxer {
        (factory ?? .fallback).makeRung(tolerance: SegmentGrid.rungCutTolerance)
    }
}
