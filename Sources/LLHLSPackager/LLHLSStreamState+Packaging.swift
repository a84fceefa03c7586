import MediaCore

/// Frames into the muxers, muxed parts through the aligner into the playlists.
extension LLHLSStreamState {
    /// Audio held until video has passed its time, so segment cuts align across renditions; released when video
    /// stalls for over a second (48 AAC frames). Before a session's first video frame audio only waits (the newest
    /// `AudioBeforeVideo.limit` frames): every rendition starts at that frame, whatever the tracks' first timestamps.
    mutating func releaseHeldAudio(all: Bool, now: ClockReading) {
        guard var a = audio, !a.heldFrames.isEmpty else { return }
        if timeline.origin == nil, video != nil, description?.video != nil {
            let over = all ? a.heldFrames.count : a.heldFrames.count - AudioBeforeVideo.limit
            if over > 0 {
                audioBeforeVideo.drop(a.heldFrames.prefix(over))
                a.heldFrames.removeFirst(over)
                framesDroppedBeforeStart += over
            }
            audio = a
            return
        }
        let released = a.releaseHeld(sourcePassed: lastVideoDTS, all: all, limit: 48)
        audio = a
        for f in released { push(f, name: "audio", now: now) }
    }

    /// The session's first video frame at `start` set the timeline: reports the audio that came before it (held audio
    /// older than `start` is dropped as it is released, being before the timeline's origin).
    mutating func noteAudioBeforeVideo(start: MediaTime) {
        audioBeforeVideo.drop((audio?.heldFrames ?? []).filter { $0.dts < start })
        if let earliest = audioBeforeVideo.earliest, audioBeforeVideo.frames > 0 {
            emit(.audioDroppedBeforeVideo(frames: audioBeforeVideo.frames, span: start - earliest))
        }
        audioBeforeVideo = AudioBeforeVideo()
    }

    /// Muxes one source frame (`video` or `audio`) and lists what the aligner lets through.
    mutating func push(_ frame: MediaFrame, name: String, now: ClockReading) {
        guard var p = pipeline(named: name),
            let time = timeline.map(frame, timescale: p.timescale, fallback: now.wall)
        else {
            framesDroppedBeforeStart += 1
            return
        }
        framesSinceRestart += 1
        var opensSegment = false
        if name == "video" {
            let seen = grid.observe(frame, at: time, video: description?.video)
            opensSegment = seen.opensSegment
            if let found = seen.longGOP {
                p.muxer.cutPolicy = .fixedGrid
                emit(.longGOPDetected(LongGOPFinding(evidence: found, gridTarget: grid.gridTarget)))
            }
        }
        let sample = TrackSample(
            dts: p.smoothedDTS(time.value),
            compositionOffset: Int32(clamping: frame.compositionOffset.converted(to: p.timescale).value),
            isSync: frame.isKeyframe,
            data: frame.data,
            ingested: frame.stamps.readyForPackaging,
            capture: frame.stamps.capture,
            opensSegment: opensSegment
        )
        let parts = p.muxer.push(sample)
        let boundaries = p.muxer.takeDecidedBoundaries().map { MediaTime(value: $0, timescale: p.timescale) }
        setPipeline(named: name, p)
        publish(parts, name: name, now: now)
        guard name == "video" else { return }
        // Audio and the rungs cut where the source video did.
        for b in boundaries {
            if let ts = audio?.timescale { audio?.muxer.addBoundary(b.converted(to: ts).value) }
            for rung in rungs.keys { rungs[rung]?.muxer.addBoundary(b.converted(to: 90_000).value) }
        }
        // The segment a boundary opens gets the next MSN once its first part closes; rungs start on it.
        let next = video?.rendition.nextMSN ?? startMSN
        if let td = grid.record(boundaries, nextMSN: next) { decideTargetDuration(td) }
    }

    mutating func flushMuxers(now: ClockReading) {
        for name in pipelineNames { flushMuxer(name, now: now) }
    }

    /// Flushes a rendition before a new timeline: its parts are listed, but its segment stays open until the new
    /// timeline's first part (`PublishedRendition.defersClose`).
    mutating func flushMuxerBeforeDiscontinuity(_ name: String, now: ClockReading) {
        guard pipeline(named: name) != nil else { return }
        setDefersClose(true, name)
        flushMuxer(name, now: now)
        setDefersClose(false, name)
    }

    private mutating func setDefersClose(_ defers: Bool, _ name: String) {
        guard var p = pipeline(named: name) else { return }
        p.rendition.defersClose = defers
        setPipeline(named: name, p)
    }

    /// Closes a rendition's open part and segment, listing everything it muxed (source or rung).
    mutating func flushMuxer(_ name: String, now: ClockReading) {
        guard var p = pipeline(named: name) else { return }
        let parts = p.muxer.flush()
        setPipeline(named: name, p)
        publish(parts, name: name, now: now)
        // Everything muxed must be listed before the segment closes.
        releaseAligned(now: now, force: true)
        guard var q = pipeline(named: name) else { return }
        let before = q.rendition.lastCompleteMSN
        if !q.rendition.defersClose { q.rendition.closeOpenSegment() }
        setPipeline(named: name, q)
        reportClosedSegment(name, after: before, now: now)
    }

    /// Hands muxed parts to the aligner and lists whatever is now in step.
    mutating func publish(_ parts: [MuxedPart], name: String, now: ClockReading) {
        guard !parts.isEmpty, let p = pipeline(named: name) else { return }
        for part in parts { aligner.hold(part, name: name, timescale: p.timescale, now: now.instant) }
        releaseAligned(now: now, force: false)
    }

    /// Lists held parts that every pacing rendition has reached (or that waited too long, or all when forced).
    mutating func releaseAligned(now: ClockReading, force: Bool) {
        // Video renditions set the pace; audio trails video (never listed past it) and never holds it back.
        let pacing = pipelineNames.filter { name in
            if name == "audio" { return video == nil }
            // A rung the transcoder reports behind (+Shedding) holds nobody back.
            return (rungs[name]?.active ?? true) && !behindRungs.contains(name)
        }
        // Within most of a part counts as in step: rungs with other frame rates end their parts at other instants.
        let tolerance = MediaTime(value: Int64(partTarget.secondsDouble * 90_000 * 0.75), timescale: 90_000)
        let (ready, events) = aligner.release(
            pacing: pacing,
            rungs: Set(rungs.keys),
            trailing: video == nil ? [] : ["audio"],
            tolerance: tolerance,
            now: now.instant,
            force: force
        )
        for e in events { emit(e) }
        for held in ready { commit(held.part, name: held.name, now: now) }
    }

    /// Lists one part in its rendition's playlist.
    private mutating func commit(_ part: MuxedPart, name: String, now: ClockReading) {
        guard var p = pipeline(named: name) else { return }
        let start = MediaTime(value: part.startDTS, timescale: p.timescale)
        let before = p.rendition.lastCompleteMSN
        // A rung's tail of the previous timeline keeps that timeline's init section and dates.
        let onTimeline = p.finishingSession == nil ? timeline : previousTimeline ?? timeline
        let independent = p.rendition.append(
            part,
            session: p.finishingSession ?? sessionIndex,
            programDateTime: onTimeline.programDateTime(at: start, fallback: now.wall, kind: p.kind),
            now: now.instant
        )
        let position = p.rendition.lastPart ?? (msn: p.rendition.nextMSN - 1, part: 0)
        p.rendition.trim(window: config.listedSegments, retainedAfter: config.retainedSegmentsAfterWindow)
        setPipeline(named: name, p)
        listedPart(of: name)
        // A segment ends with its last part (`endsSegment`), or, cut late, as the next one's first part arrives.
        if !part.endsSegment { reportClosedSegment(name, after: before, now: now) }
        emit(
            .partPublished(
                ListedPart(
                    rendition: name,
                    msn: position.msn,
                    index: position.part,
                    start: start,
                    duration: MediaTime(value: part.duration, timescale: p.timescale),
                    independent: independent,
                    frames: part.sampleCount,
                    bytes: part.bytes.count,
                    published: now.instant,
                    ingested: part.ingested,
                    captured: part.captured
                )
            )
        )
        if part.endsSegment { reportClosedSegment(name, after: before, now: now) }
    }

    /// Emits `segmentClosed` when a rendition's newest complete segment moved past `before`.
    private mutating func reportClosedSegment(_ name: String, after before: Int?, now: ClockReading) {
        guard let r = pipeline(named: name)?.rendition, let msn = r.lastCompleteMSN, msn != before,
            let s = r.segments.last(where: { $0.msn == msn }), s.gapDuration == nil
        else { return }
        emit(
            .segmentClosed(
                rendition: name,
                msn: msn,
                duration: MediaTime(value: s.duration, timescale: s.timescale),
                recorded: packagedSegment(s, of: name, now: now.instant)
            )
        )
    }
}
