import MediaCore

/// What one call into `LLHLSStreamState` did; the stream performs the telemetry, the logs and the wake-ups.
enum PackagerEvent: Sendable, Equatable {
    /// A new publisher session or a codec change started a timeline (DISCONTINUITY, init section `session`).
    case timelineRestarted(session: Int)
    /// The source described its tracks (new init sections).
    case tracksDescribed
    /// A rung's reader attached during publisher session `session`; its calls pass it (`attachRung`).
    case rungAttached(String, session: Int)
    /// A ladder rung announced (new) parameters; it starts at the next aligned IDR.
    case rungAnnounced(String)
    /// A rung started on an IDR at the source's cut, taking segment `msn`.
    case renditionStarted(String, msn: Int)
    /// A part was listed in its rendition's playlist.
    case partPublished(ListedPart)
    /// A segment became complete; `recorded` is what the recorder gets (nil for the passthrough a bridged rung
    /// replaces).
    case segmentClosed(rendition: String, msn: Int, duration: MediaTime, recorded: PackagedSegment?)
    /// EXT-X-TARGETDURATION fixed from the source's first segment.
    case targetDurationDecided(seconds: Int)
    /// The source's keyframes are further apart than the segment target: segments follow the grid from now on.
    case longGOPDetected(LongGOPFinding)
    /// A rung that muxed a part on this timeline trails the source by more than `RungAligner.lagLimit`: the others
    /// stop waiting for it (a rung still starting its encoder is not waited for either, but is not reported).
    case rungFellBehind(String)
    /// A rung reported behind is back within a part of the leader: listed in step again.
    case rungCaughtUp(String)
    /// A rung's transcoder stopped: its open part and segment are closed.
    case rungStopped(String)
    /// A rung shed under load left the multivariant and the reports, or came back (+Shedding).
    case rungListed(String, listed: Bool)
    /// The session's audio began before its first video frame: every rendition starts at that frame, so the audio
    /// before it (`frames`, spanning `span`) was dropped.
    case audioDroppedBeforeVideo(frames: Int, span: MediaTime)
    /// The publisher left; playlists stay open for the reconnect grace.
    case publisherLeft
    /// ENDLIST written.
    case ended

    /// True when playlists changed, so blocked requests must re-check.
    var changesPlaylists: Bool {
        switch self {
        case .rungAttached, .renditionStarted, .targetDurationDecided, .longGOPDetected, .rungFellBehind, .rungCaughtUp,
            .audioDroppedBeforeVideo:
            false
        default: true
        }
    }
}

/// One part as listed, with what the package and available hops need.
struct ListedPart: Sendable, Equatable {
    /// Rendition name.
    var rendition: String
    /// Segment and part index in the playlist.
    var msn: Int
    var index: Int
    /// Start and length on the rendition's timeline.
    var start: MediaTime
    var duration: MediaTime
    /// Starts with a sync sample.
    var independent: Bool
    /// Frames and bytes inside.
    var frames: Int
    var bytes: Int
    /// When it was listed, and when its frames reached the packager and were captured.
    var published: ContinuousClock.Instant
    var ingested: [ContinuousClock.Instant]
    var captured: [WallTime]
}
