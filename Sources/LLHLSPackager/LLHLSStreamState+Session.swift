import FMP4
import MediaCore

/// Sessions and tracks: what a new publisher, a codec change, the publisher leaving and ENDLIST do.
extension LLHLSStreamState {
    /// Closes every rendition's open part and starts the timeline anew after what was published. At a splice
    /// (`rungsFinish`, the same publisher session) each rung first packages the frames its encoder still holds from
    /// the old timeline, and restarts at its own first frame of the new one (`finishPreviousTimeline`): restarting it
    /// here would lose that tail and list the segment it had not reached as a GAP, which stock hls.js stalls on.
    mutating func restartTimeline(now: ClockReading, rungsFinish: Bool = false) {
        // A rung still finishing the timeline before this one has nothing more of it to come.
        for name in rungs.keys.sorted() { finishPreviousTimeline(name, now: now) }
        releaseHeldAudio(all: true, now: now)
        let finishing = rungsFinish ? Set(rungs.filter { $0.value.active }.keys) : []
        if finishing.isEmpty { releaseHeldRungFrames(all: true, now: now) }
        for name in pipelineNames where !finishing.contains(name) { flushMuxerBeforeDiscontinuity(name, now: now) }
        alignSegmentNumbers(now: now, except: finishing)
        var end = MediaTime.zero(timescale: 90_000)
        for name in pipelineNames where !finishing.contains(name) {
            if let e = pipeline(named: name)?.publishedEnd { end = max(end, e.converted(to: 90_000)) }
        }
        previousTimeline = finishing.isEmpty ? nil : timeline
        timeline.restart(at: end)
        needsKeyframe = true
        audioBeforeVideo = AudioBeforeVideo()
        grid.restart()
        sessionIndex += 1
        framesSinceRestart = 0
        lastVideoDTS = nil
        aligner.restart()
        for name in pipelineNames {
            guard var p = pipeline(named: name) else { continue }
            if finishing.contains(name) {
                p.finishingSession = sessionIndex - 1
                setPipeline(named: name, p)
                continue
            }
            p.beginTimeline(muxer: makeMuxer(p.kind, timescale: p.timescale), isRung: rungs[name] != nil)
            setPipeline(named: name, p)
        }
        installInitSections()
        emit(.timelineRestarted(session: sessionIndex))
    }

    /// A rung reached the new timeline (or stops): lists the old timeline's tail, then waits for its IDR on the new
    /// one, where `startOrPushRung` gives it the source's MSN (GAPs only for segments it really missed).
    mutating func finishPreviousTimeline(_ name: String, now: ClockReading) {
        guard rungs[name]?.finishingSession != nil else { return }
        flushMuxerBeforeDiscontinuity(name, now: now)
        guard var p = rungs[name] else { return }
        p.beginTimeline(muxer: makeMuxer(p.kind, timescale: p.timescale), isRung: true)
        p.installInit(session: sessionIndex)
        rungs[name] = p
        if rungs.values.allSatisfy({ $0.finishingSession == nil }) { previousTimeline = nil }
    }

    /// New or changed tracks.
    mutating func describe(_ d: StreamDescription, now: ClockReading) {
        if description == d { return }
        let hadMedia = framesSinceRestart > 0
        if factory == nil {
            factory = MuxerFactory(
                partTarget: MuxerFactory.partTarget(wanted: config.partTarget, frameRate: d.video?.frameRate),
                segmentTarget: config.segmentTarget,
                targetDuration: grid.decidedTargetDuration ?? grid.provisionalTargetDuration
            )
        }
        // A codec change mid-session is a new timeline for players: flush what the old parameters cut,
        // then DISCONTINUITY and a new init section.
        if hadMedia { restartTimeline(now: now, rungsFinish: true) }
        if keptBridgedRung == nil { keptBridgedRung = bridgedRung }
        description = d
        if let v = d.video {
            if video == nil {
                video = TrackPipeline(
                    kind: .video,
                    timescale: 90_000,
                    muxer: makeMuxer(.video, timescale: 90_000),
                    rendition: PublishedRendition(name: "video", timescale: 90_000, continuing: continuation),
                    parameters: .video(v)
                )
            }
            video?.parameters = .video(v)
        }
        if let a = d.audio {
            let ts = Int32(a.sampleRate)
            if audio == nil || audio?.timescale != ts {
                var rendition =
                    audio?.rendition ?? PublishedRendition(name: "audio", timescale: ts, continuing: continuation)
                rendition.timescale = ts
                var fresh = TrackPipeline(
                    kind: .audio,
                    timescale: ts,
                    muxer: makeMuxer(.audio, timescale: ts),
                    rendition: rendition,
                    parameters: .audio(a)
                )
                fresh.heldFrames = audio?.heldFrames ?? []
                audio = fresh
            }
            audio?.parameters = .audio(a)
        }
        installInitSections()
        emit(.tracksDescribed)
    }

    /// Renditions that ended a session with fewer segments get EXT-X-GAP segments, so the next
    /// session's DISCONTINUITY lands on the same MSN everywhere (checklist M7, V4).
    private mutating func alignSegmentNumbers(now: ClockReading, except finishing: Set<String>) {
        let names = pipelineNames.filter { !finishing.contains($0) }
        let target = names.compactMap { pipeline(named: $0)?.rendition.nextMSN }.max() ?? startMSN
        var lengths: [Int: MediaTime] = [:]
        for name in names {
            for s in pipeline(named: name)?.rendition.segments ?? [] where lengths[s.msn] == nil && s.gapDuration == nil
            {
                lengths[s.msn] = MediaTime(value: s.duration, timescale: s.timescale)
            }
        }
        for name in names {
            guard var p = pipeline(named: name), p.rendition.nextMSN < target else { continue }
            fillGaps(&p, upTo: target, lengths: lengths, now: now)
            setPipeline(named: name, p)
        }
    }

    /// Fills a rendition's missing MSNs with EXT-X-GAP segments dated on the stream's timeline.
    func fillGaps(_ p: inout TrackPipeline, upTo target: Int, lengths: [Int: MediaTime], now: ClockReading) {
        let timeline = self.timeline
        let kind = p.kind
        p.rendition.fillGaps(upTo: target, lengths: lengths, session: sessionIndex) { t in
            timeline.programDateTime(at: t, fallback: now.wall, kind: kind)
        }
    }

    /// The publisher left: close open parts; playlists stay live for the reconnect grace.
    @discardableResult
    mutating func publisherLeft(now: ClockReading) -> [PackagerEvent] {
        run { s in
            guard case .live = s.phase else { return }
            s.releaseHeldAudio(all: true, now: now)
            // Rungs keep draining from the transcoder; each is flushed when its own publication ends.
            s.flushMuxer("video", now: now)
            s.flushMuxer("audio", now: now)
            s.phase = .awaitingReconnect(since: now.instant)
            s.emit(.publisherLeft)
        }
    }

    /// Writes ENDLIST (grace expired or shutdown).
    @discardableResult
    mutating func end(now: ClockReading) -> [PackagerEvent] {
        run { s in
            if case .ended = s.phase { return }
            s.releaseHeldAudio(all: true, now: now)
            s.releaseHeldRungFrames(all: true, now: now)
            s.flushMuxers(now: now)
            s.phase = .ended(since: now.instant)
            s.emit(.ended)
        }
    }
}
