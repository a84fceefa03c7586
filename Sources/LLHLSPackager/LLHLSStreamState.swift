import CodecFormats
import MediaCore

/// The packaging state of one stream key: a value fed hub events that returns what it published (`PackagerEvent`).
/// It reads no clock and records nothing: `LLHLSStream` passes the time in and performs the events.
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
    /// Another node's numbering this stream continues (its encoder reconnected here), nil for a new stream.
    let continuation: StreamContinuation?
    let config: LLHLSConfiguration
    var phase: Phase = .live
    /// Fixed at the first description.
    var factory: MuxerFactory?
    var video: TrackPipeline?
    var audio: TrackPipeline?
    /// Transcoded ladder rungs by name (`480p`), published by the transcoder under derived hub keys.
    var rungs: [String: TrackPipeline] = [:]
    /// Parts muxed but not yet listed, waiting for the slowest rendition.
    var aligner = RungAligner()
    /// Rungs the transcoder shed under load, shed rungs fed again without a new part yet, and rungs it reports
    /// behind the source now (+Shedding).
    var withdrawnRungs: Set<String> = []
    var returningRungs: Set<String> = []
    var behindRungs: Set<String> = []
    /// What each media element (client and rendition) was last answered with, and when it first loaded (+StartupHold).
    var startupLoads: [String: StartupLoad] = [:]
    /// The source's segment starts, long-GOP grid and TARGETDURATION.
    var grid: SegmentGrid
    var description: StreamDescription?
    /// The bridged rung players know as `video`, kept when the source's size changes (a backup of another size): the
    /// multivariant players hold names it for the stream's life.
    var keptBridgedRung: String?
    var timeline = StreamTimeline()
    /// The timeline before the last splice, while a rung still packages its tail (`TrackPipeline.finishingSession`).
    var previousTimeline: StreamTimeline?
    /// Init section index; bumps on every session or codec change.
    var sessionIndex = 0
    var sessionStarted = false
    /// Counts publisher sessions; a rung from an earlier session must not touch the current one.
    var publisherSession = 0
    /// Frames packaged since the timeline last restarted (a description right after a restart needs no second one).
    var framesSinceRestart = 0
    var lastVideoDTS: MediaTime?
    /// Bumps with every event that changes playlists; rendered playlists are valid while it is unchanged.
    var version: UInt64 = 0
    /// Rendered media playlists, valid while `version` is unchanged.
    var playlistCache = PlaylistRenderCache()
    var framesDroppedBeforeStart = 0
    /// Audio dropped this session while it waited for the first video frame (+Packaging).
    var audioBeforeVideo = AudioBeforeVideo()
    /// Skip video until the next IDR: at every session start, and after the hub dropped frames for us.
    var needsKeyframe = true
    /// What the current call did, returned by the entry point.
    private var outbox: [PackagerEvent] = []

    init(key: StreamKey, epoch: String, config: LLHLSConfiguration, continuation: StreamContinuation? = nil) {
        self.key = key
        self.epoch = epoch
        self.continuation = continuation
        self.config = config
        grid = SegmentGrid(
            segmentTarget: config.segmentTarget,
            targetDuration: config.targetDurationSeconds,
            firstSegment: config.firstSegment
        )
    }

    /// Advertised PART-TARGET.
    var partTarget: Duration { factory?.partTarget ?? config.partTarget }

    /// True once ENDLIST is out.
    var isEnded: Bool { if case .ended = phase { true } else { false } }

    /// Records an event of the current call; one that changes playlists invalidates the rendered ones.
    mutating func emit(_ event: PackagerEvent) {
        outbox.append(event)
        if event.changesPlaylists { version += 1 }
    }

    /// Runs one entry point's work and returns the events it emitted.
    mutating func run(_ body: (inout LLHLSStreamState) -> Void) -> [PackagerEvent] {
        precondition(outbox.isEmpty, "entry points do not nest: each returns its own events")
        body(&self)
        defer { outbox = [] }
        return outbox
    }

    /// A new publisher (first or reconnect) took the key.
    @discardableResult
    mutating func beginSession(now: ClockReading) -> [PackagerEvent] {
        run { s in
            if case .ended = s.phase { return }
            s.phase = .live
            s.publisherSession += 1
            guard s.sessionStarted else {
                s.sessionStarted = true
                return
            }
            s.restartTimeline(now: now)
        }
    }

    /// New or changed tracks.
    @discardableResult
    mutating func apply(_ d: StreamDescription, now: ClockReading) -> [PackagerEvent] {
        run { s in s.describe(d, now: now) }
    }

    /// The hub dropped frames for the source's reader: video resumes at the next keyframe.
    @discardableResult
    mutating func readerDropped() -> [PackagerEvent] {
        run { s in s.needsKeyframe = true }
    }

    /// One frame from the hub.
    @discardableResult
    mutating func apply(_ frame: MediaFrame, now: ClockReading) -> [PackagerEvent] {
        run { s in
            guard case .live = s.phase else { return }
            switch frame.kind {
            case .video:
                guard s.video != nil, !s.needsKeyframe || frame.isKeyframe else {
                    s.framesDroppedBeforeStart += 1
                    return
                }
                s.needsKeyframe = false
                let startsSession = s.timeline.origin == nil
                s.push(frame, name: "video", now: now)
                s.lastVideoDTS = frame.dts
                if startsSession { s.noteAudioBeforeVideo(start: frame.dts) }
                s.releaseHeldAudio(all: false, now: now)
                s.releaseHeldRungFrames(all: false, now: now)
            case .audio:
                guard s.audio != nil else {
                    s.framesDroppedBeforeStart += 1
                    return
                }
                if s.video == nil || s.description?.video == nil {
                    s.push(frame, name: "audio", now: now)
                } else {
                    s.audio?.heldFrames.append(frame)
                    s.releaseHeldAudio(all: false, now: now)
                }
            }
        }
    }
}
