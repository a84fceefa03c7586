import CodecFormats
import FMP4
import HLSPlaylist
import MediaCore
import Telemetry

/// The packaging state of one stream key: a value fed hub events that publishes parts.
struct LLHLSStreamState: Sendable {
    /// Lifecycle of the stream as viewers see it.
    enum Phase: Sendable, Equatable {
        /// A publisher is connected.
        case live
        /// The publisher left; playlists stay open until the grace period ends.
        case awaitingReconnect(since: ContinuousClock.Instant)
        /// ENDLIST written.
        case ended(since: ContinuousClock.Instant)
    }

    let key: StreamKey
    /// Unique per stream instance; part of every media URI so caches never mix instances.
    let epoch: String
    let config: LLHLSConfiguration
    var phase: Phase = .live
    /// Fixed at the first description.
    var factory: MuxerFactory?
    var video: TrackPipeline?
    var audio: TrackPipeline?
    /// Transcoded ladder rungs by name (`480p`), published by the transcoder under derived hub keys.
    var rungs: [String: TrackPipeline] = [:]
    /// Rungs that must start on an IDR (new, or after a restart).
    var rungsAwaitingKeyframe: Set<String> = []
    /// Rung frames waiting for the source video to pass their time.
    var heldRungFrames: [String: [MediaFrame]] = [:]
    /// Parts muxed but not yet listed, waiting for the slowest rendition (see +Alignment).
    var heldParts: [HeldPart] = []
    /// End of the last muxed part per rendition, 90 kHz stream ticks.
    var producedEnd: [String: Int64] = [:]
    /// Rungs currently fed by a transcoder (a rung awaiting its first IDR does not hold others back).
    var activeRungs: Set<String> = []
    /// Active rungs trailing the source by more than `lagLimit`: listed as they come, without holding the others.
    var laggingRungs: Set<String> = []
    /// Rungs the transcoder shed under load, and shed rungs fed again that have no new part yet (+Shedding).
    var withdrawnRungs: Set<String> = []
    var returningRungs: Set<String> = []
    /// Rungs the transcoder reports behind the source now: nothing waits for them (+Shedding).
    var behindRungs: Set<String> = []
    /// Where the source video's recent segments start (stream ticks at 90 kHz) and their MSNs.
    var videoSegmentStarts: [(dts: Int64, msn: Int)] = []
    var description: StreamDescription?
    var timeline = StreamTimeline()
    /// Init section index; bumps on every session or codec change.
    var sessionIndex = 0
    var sessionStarted = false
    /// Counts publisher sessions; a rung from an earlier session must not touch the current one.
    var publisherSession = 0
    /// Frames packaged since the timeline last restarted (a description right after a restart needs no second one).
    var framesSinceRestart = 0
    /// Audio held until video has passed its time, so segment cuts align across renditions.
    var heldAudio: [MediaFrame] = []
    var lastVideoDTS: MediaTime?
    /// Bumps on every published part; blocked requests re-check on change.
    var version: UInt64 = 0
    /// Rendered media playlists, valid while `version` is unchanged.
    var playlistCache = PlaylistRenderCache()
    /// Where the package and available hops and the published parts are counted (the gateway's, set by the stream).
    var telemetry: GatewayTelemetry?
    var framesDroppedBeforeStart = 0
    /// Skip video until the next IDR: at every session start, and after the hub dropped frames for us.
    var needsKeyframe = true
    /// TARGETDURATION once the first video segment fixed it (+TargetDuration).
    var decidedTargetDuration: Int?
    /// This session's source keyframes, and the segment grid once they are too far apart (see +LongGOP).
    var cadence: KeyframeCadence?
    /// Why the source's segments do not follow its keyframes, once any session had a long GOP (sticky, for stats).
    var longGOP: KeyframeCadence.Evidence?
    /// A long GOP found and not yet logged (the packager logs it once per session).
    var longGOPNotice: KeyframeCadence.Evidence?

    init(key: StreamKey, epoch: String, config: LLHLSConfiguration) {
        self.key = key
        self.epoch = epoch
        self.config = config
    }

    /// Advertised PART-TARGET in seconds.
    var partTargetSeconds: Double { factory?.partTarget ?? config.partTarget.secondsDouble }

    /// A new publisher (first or reconnect) took the key.
    mutating func beginSession() {
        if case .ended = phase { return }
        phase = .live
        publisherSession += 1
        guard sessionStarted else {
            sessionStarted = true
            return
        }
        restartTimeline()
    }

    /// Closes both renditions' open parts and starts the timeline anew after what was published.
    private mutating func restartTimeline() {
        releaseHeldAudio(all: true)
        releaseHeldRungFrames(all: true)
        flushMuxers()
        alignSegmentNumbers()
        var end = MediaTime.zero(timescale: 90_000)
        for name in pipelineNames {
            if let e = pipeline(named: name)?.publishedEnd { end = max(end, e.converted(to: 90_000)) }
        }
        timeline.restart(at: end)
        needsKeyframe = true
        cadence = nil
        sessionIndex += 1
        framesSinceRestart = 0
        lastVideoDTS = nil
        rungsAwaitingKeyframe = Set(rungs.keys)
        activeRungs = []
        laggingRungs = []
        for name in pipelineNames {
            guard var p = pipeline(named: name) else { continue }
            p.rendition.pendingDiscontinuity = true
            p.expectedNextDTS = nil
            p.muxer = makeMuxer(p.kind, timescale: p.timescale)
            setPipeline(named: name, p)
        }
        installInitSections()
        version += 1
    }

    /// New or changed tracks.
    mutating func apply(_ d: StreamDescription) {
        if description == d { return }
        let hadMedia = framesSinceRestart > 0
        if factory == nil {
            factory = MuxerFactory(
                partTarget: MuxerFactory.partTarget(wanted: config.partTarget, frameRate: d.video?.frameRate),
                segmentTarget: config.segmentTarget.secondsDouble,
                targetDuration: decidedTargetDuration ?? provisionalTargetDuration
            )
        }
        // A codec change mid-session is a new timeline for players: flush what the old parameters cut,
        // then DISCONTINUITY and a new init section.
        if hadMedia { restartTimeline() }
        description = d
        if let v = d.video {
            if video == nil {
                video = TrackPipeline(
                    kind: .video,
                    timescale: 90_000,
                    muxer: makeMuxer(.video, timescale: 90_000),
                    rendition: PublishedRendition(name: "video", timescale: 90_000),
                    parameters: .video(v)
                )
            }
            video?.parameters = .video(v)
        }
        if let a = d.audio {
            let ts = Int32(a.sampleRate)
            if audio == nil || audio?.timescale != ts {
                var rendition = audio?.rendition ?? PublishedRendition(name: "audio", timescale: ts)
                rendition.timescale = ts
                audio = TrackPipeline(
                    kind: .audio,
                    timescale: ts,
                    muxer: makeMuxer(.audio, timescale: ts),
                    rendition: rendition,
                    parameters: .audio(a)
                )
            }
            audio?.parameters = .audio(a)
        }
        installInitSections()
        version += 1
    }

    private func makeMuxer(_ kind: MediaKind, timescale: Int32) -> RenditionMuxer {
        let f = factory ?? MuxerFactory(partTarget: 0.2, segmentTarget: 2, targetDuration: 2)
        return f.make(kind: kind, timescale: timescale, followsBoundaries: kind == .audio && description?.video != nil)
    }

    private mutating func installInitSections() {
        for name in pipelineNames { installInitSection(name) }
    }

    private mutating func installInitSection(_ name: String) {
        guard var p = pipeline(named: name) else { return }
        p.rendition.initSections[sessionIndex] = FMP4InitSegment.serialize(
            track: FMP4Track(trackID: 1, timescale: UInt32(p.timescale), media: p.parameters)
        )
        setPipeline(named: name, p)
    }

    /// One frame from the hub.
    mutating func apply(_ frame: MediaFrame, now: ContinuousClock.Instant) {
        guard case .live = phase else { return }
        switch frame.kind {
        case .video:
            guard video != nil else {
                framesDroppedBeforeStart += 1
                return
            }
            if needsKeyframe {
                guard frame.isKeyframe else {
                    framesDroppedBeforeStart += 1
                    return
                }
                needsKeyframe = false
            }
            push(frame, name: "video", now: now)
            lastVideoDTS = frame.dts
            releaseHeldAudio(all: false)
            releaseHeldRungFrames(all: false)
        case .audio:
            guard audio != nil else {
                framesDroppedBeforeStart += 1
                return
            }
            if video == nil || description?.video == nil {
                push(frame, name: "audio", now: now)
            } else {
                heldAudio.append(frame)
                releaseHeldAudio(all: false)
            }
        }
    }

    /// The publisher left: close open parts; playlists stay live for the reconnect grace.
    mutating func publisherLeft(now: ContinuousClock.Instant) {
        guard case .live = phase else { return }
        releaseHeldAudio(all: true)
        // Rungs keep draining from the transcoder; each is flushed when its own publication ends.
        flushMuxer("video")
        flushMuxer("audio")
        phase = .awaitingReconnect(since: now)
        version += 1
    }

    /// Writes ENDLIST (grace expired or shutdown).
    mutating func end(now: ContinuousClock.Instant) {
        if case .ended = phase { return }
        releaseHeldAudio(all: true)
        releaseHeldRungFrames(all: true)
        flushMuxers()
        phase = .ended(since: now)
        version += 1
    }

    /// True once ENDLIST is out.
    var isEnded: Bool { if case .ended = phase { true } else { false } }

    private mutating func releaseHeldAudio(all: Bool) {
        guard !heldAudio.isEmpty else { return }
        var released = 0
        for f in heldAudio {
            // Release audio once video passed its time, or when video stalls for over a second.
            let videoPassed = lastVideoDTS.map { f.dts < $0 } ?? false
            let tooOld = heldAudio.count - released > 48
            guard all || videoPassed || tooOld else { break }
            push(f, name: "audio", now: ContinuousClock.now)
            released += 1
        }
        heldAudio.removeFirst(released)
    }

    private mutating func push(_ frame: MediaFrame, name: String, now: ContinuousClock.Instant) {
        guard var p = pipeline(named: name), let ticks = timeline.map(frame, timescale: p.timescale) else {
            framesDroppedBeforeStart += 1
            return
        }
        var dts = ticks
        framesSinceRestart += 1
        let opensSegment = name == "video" && followSourceCadence(frame, dts: dts, muxer: &p.muxer)
        if case .audio(let a) = p.parameters {
            // AAC frames are exactly samplesPerFrame long; absorb RTMP's millisecond rounding.
            if let expected = p.expectedNextDTS, abs(expected - dts) <= Int64(a.samplesPerFrame / 2) { dts = expected }
            if let expected = p.expectedNextDTS, dts < expected { dts = expected }
            p.expectedNextDTS = dts + Int64(a.samplesPerFrame)
        }
        let cto = Int32(clamping: frame.compositionOffset.converted(to: p.timescale).value)
        let sample = TrackSample(
            dts: dts,
            compositionOffset: cto,
            isSync: frame.isKeyframe,
            data: frame.data,
            ingested: frame.stamps.readyForPackaging,
            capture: frame.stamps.capture,
            opensSegment: opensSegment
        )
        let parts = p.muxer.push(sample)
        let boundaries = p.muxer.takeDecidedBoundaries()
        setPipeline(named: name, p)
        publish(parts, name: name, now: now)
        if name == "video", var a = audio {
            for b in boundaries {
                a.muxer.addBoundary(MediaTime(value: b, timescale: 90_000).converted(to: a.timescale).value)
            }
            audio = a
        }
        if name == "video" {
            for rung in rungs.keys { for b in boundaries { rungs[rung]?.muxer.addBoundary(b) } }
            // The segment a boundary opens gets the next MSN once its first part closes; rungs start on it.
            let next = video?.rendition.nextMSN ?? PublishedRendition.firstMSN
            for (i, b) in boundaries.enumerated() { videoSegmentStarts.append((dts: b, msn: next + i)) }
            decideTargetDurationIfNeeded()
            // A starved rung may trail the source by its queues (hub reader 512 frames ≈ 17 s at 30 fps): keep enough
            // starts that its next IDR still finds its segment, or the rung would never rejoin.
            if videoSegmentStarts.count > 64 { videoSegmentStarts.removeFirst(videoSegmentStarts.count - 64) }
        }
    }

    private mutating func flushMuxers() {
        for name in pipelineNames { flushMuxer(name) }
    }

    /// Closes a rendition's open part and segment, listing everything it muxed (source or rung).
    mutating func flushMuxer(_ name: String) {
        guard var p = pipeline(named: name) else { return }
        let parts = p.muxer.flush()
        setPipeline(named: name, p)
        publish(parts, name: name, now: ContinuousClock.now)
        // Everything muxed must be listed before the segment closes.
        releaseAligned(now: .now, force: true)
        if var q = pipeline(named: name) {
            q.rendition.closeOpenSegment()
            setPipeline(named: name, q)
        }
    }

    func pipeline(_ kind: MediaKind) -> TrackPipeline? { kind == .video ? video : audio }

    mutating func setPipeline(_ kind: MediaKind, _ p: TrackPipeline) {
        if kind == .video { video = p } else { audio = p }
    }

    /// Renditions that ended a session with fewer segments get EXT-X-GAP segments, so the next
    /// session's DISCONTINUITY lands on the same MSN everywhere (checklist M7, V4).
    private mutating func alignSegmentNumbers() {
        let names = pipelineNames
        let target = names.compactMap { pipeline(named: $0)?.rendition.nextMSN }.max() ?? PublishedRendition.firstMSN
        var lengths: [Int: MediaTime] = [:]
        for name in names {
            for s in pipeline(named: name)?.rendition.segments ?? [] where lengths[s.msn] == nil && s.gapDuration == nil
            {
                lengths[s.msn] = MediaTime(value: s.duration, timescale: s.timescale)
            }
        }
        let timeline = self.timeline
        for name in names {
            guard var p = pipeline(named: name), p.rendition.nextMSN < target else { continue }
            p.rendition.fillGaps(upTo: target, lengths: lengths, initIndex: sessionIndex) { t in
                timeline.programDateTime(ticks: t.value, timescale: t.timescale)
            }
            setPipeline(named: name, p)
        }
    }

    /// Every rendition by name: the source's `video`, the ladder rungs, then `audio`.
    var pipelineNames: [String] {
        (video == nil ? [] : ["video"]) + rungs.keys.sorted() + (audio == nil ? [] : ["audio"])
    }

    /// A rendition by its playlist name (`video`, `audio`, or a rung such as `480p`).
    func pipeline(named name: String) -> TrackPipeline? {
        switch name {
        case "video": video
        case "audio": audio
        default: rungs[name]
        }
    }

    mutating func setPipeline(named name: String, _ p: TrackPipeline) {
        switch name {
        case "video": video = p
        case "audio": audio = p
        default: rungs[name] = p
        }
    }
}
