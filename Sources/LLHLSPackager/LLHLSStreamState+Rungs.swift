import FMP4
import MediaCore

/// Transcoded ladder rungs: video-only renditions on the source's timeline, cut by the same keyframe rule.
extension LLHLSStreamState {
    /// A rung's (new) parameters; a change starts a new init section at the current session.
    mutating func applyRung(_ name: String, description d: StreamDescription) {
        guard let v = d.video, !isEnded else { return }
        if var p = rungs[name] {
            if case .video(let old) = p.parameters, old == v { return }
            // Close what the old encoder cut before its successor's frames arrive.
            flushMuxer(name)
            activeRungs.remove(name)
            p = rungs[name]!
            p.rendition.pendingDiscontinuity = true
            p.parameters = .video(v)
            p.muxer = makeRungMuxer()
            rungs[name] = p
        } else {
            rungs[name] = TrackPipeline(
                kind: .video,
                timescale: 90_000,
                muxer: makeRungMuxer(),
                rendition: PublishedRendition(name: name, timescale: 90_000),
                parameters: .video(v)
            )
        }
        rungsAwaitingKeyframe.insert(name)
        installRungInit(name)
        version += 1
    }

    /// One encoded frame of a rung; held until the source video passed its time, so the source's cut is known.
    mutating func applyRung(_ name: String, frame: MediaFrame, now: ContinuousClock.Instant) {
        guard !isEnded, rungs[name] != nil, frame.kind == .video, !withdrawnRungs.contains(name) else { return }
        heldRungFrames[name, default: []].append(frame)
        releaseHeldRungFrames(all: false)
    }

    /// Packages held rung frames the source has passed (or all of them when the source stops).
    mutating func releaseHeldRungFrames(all: Bool) {
        for name in heldRungFrames.keys.sorted() {
            var held = heldRungFrames[name] ?? []
            var released = 0
            for f in held {
                // Strictly past: the source decides a cut at its frame K only when frame K+1 arrives.
                let passed = lastVideoDTS.map { f.dts < $0 } ?? false
                // A transcoder far ahead of a stalled source is not held for ever.
                guard all || passed || held.count - released > 90 else { break }
                startOrPushRung(f, name: name)
                released += 1
            }
            held.removeFirst(released)
            heldRungFrames[name] = held.isEmpty ? nil : held
        }
    }

    /// A rung starts at an IDR that opens a source segment, taking that segment's MSN (same MSN, same media time).
    private mutating func startOrPushRung(_ frame: MediaFrame, name: String) {
        if rungsAwaitingKeyframe.contains(name) {
            guard frame.isKeyframe, var p = rungs[name], let dts = timeline.peek(frame, timescale: 90_000),
                let start = videoSegmentStarts.last(where: { abs($0.dts - dts) <= Self.rungCutTolerance })
            else { return }
            rungsAwaitingKeyframe.remove(name)
            activeRungs.insert(name)
            // Made now, not at announcement: a rung announced before the source's description got the default part target.
            p.muxer = makeRungMuxer()
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
                let timeline = self.timeline
                p.rendition.fillGaps(upTo: start.msn, lengths: lengths, initIndex: sessionIndex) { t in
                    timeline.programDateTime(ticks: t.value, timescale: t.timescale)
                }
            }
            rungs[name] = p
        }
        pushRung(frame, name: name, now: .now)
    }

    /// A rung that skipped pictures (its encoder fell behind) ends its segment at the hole and rejoins at the next
    /// aligned IDR: a part never spans missing media (checklist P3, F4).
    private mutating func closeRungAtHole(_ name: String) {
        guard rungs[name] != nil else { return }
        flushMuxer(name)
        let fresh = makeRungMuxer()
        rungs[name]?.muxer = fresh
        rungsAwaitingKeyframe.insert(name)
        activeRungs.remove(name)
    }

    /// How far a rung IDR may sit from the source's cut (B-frame reordering delay of the source).
    static let rungCutTolerance: Int64 = 27_000

    /// The rung's publisher (the transcoder) stopped: close its open part and segment.
    mutating func rungLeft(_ name: String) {
        releaseHeldRungFrames(all: true)
        activeRungs.remove(name)
        guard rungs[name] != nil else { return }
        flushMuxer(name)
        rungsAwaitingKeyframe.insert(name)
        version += 1
    }

    private func makeRungMuxer() -> RenditionMuxer {
        let f = factory ?? MuxerFactory(partTarget: 0.2, segmentTarget: 2, targetDuration: 2)
        var m = f.make(kind: .video, timescale: 90_000, followsBoundaries: true)
        m = RenditionMuxer(
            trackID: m.trackID,
            timescale: m.timescale,
            partTarget: m.partTarget,
            segmentTarget: m.segmentTarget,
            segmentLimit: m.segmentLimit,
            followsBoundaries: true,
            syncBoundaryTolerance: Self.rungCutTolerance
        )
        return m
    }

    private mutating func installRungInit(_ name: String) {
        guard var p = rungs[name] else { return }
        p.rendition.initSections[sessionIndex] = FMP4InitSegment.serialize(
            track: FMP4Track(trackID: 1, timescale: 90_000, media: p.parameters)
        )
        rungs[name] = p
    }

    private mutating func pushRung(_ frame: MediaFrame, name: String, now: ContinuousClock.Instant) {
        guard var p = rungs[name], let dts = timeline.map(frame, timescale: 90_000) else { return }
        if let end = p.muxer.endDTS, p.muxer.lastDuration > 0, dts - end > 2 * p.muxer.lastDuration {
            closeRungAtHole(name)
            startOrPushRung(frame, name: name)
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
}
