import CodecFormats
import MediaCore

/// The source video's segment grid: where its segments start (rungs start on them), the long-GOP cadence that may
/// cut them, and the TARGETDURATION the first one decides.
///
/// TARGETDURATION follows the source's keyframe interval: the segment target (1 s by default) when keyframes come
/// that often, else the first GOP rounded (a 2 s GOP, OBS's usual setting, keeps 2 s segments that start on an IDR).
/// It is decided when the first video segment closes, before any playlist is served (fast start waits for a whole
/// segment), so no player ever sees it change (RFC 8216bis §6.2.1: TARGETDURATION MUST NOT change).
struct SegmentGrid: Sendable {
    /// How far a rung IDR may sit from the source's cut (B-frame reordering delay of the source).
    static let rungCutTolerance = MediaTime(value: 27_000, timescale: 90_000)
    /// A starved rung may trail the source by its queues (hub reader 512 frames ≈ 17 s at 30 fps): keep enough starts
    /// that its next IDR still finds its segment, or the rung would never rejoin.
    static let retainedStarts = 64

    /// The configured segment target and TARGETDURATION.
    let segmentTarget: Duration
    let configuredTargetDuration: Int
    /// Where the source's recent segments start on the stream timeline, and their MSNs.
    private(set) var starts: [(start: MediaTime, msn: Int)] = []
    /// This session's source keyframes, and the grid once they are too far apart.
    private var cadence: KeyframeCadence?
    /// Why the source's segments do not follow its keyframes, once any session had a long GOP (sticky, for stats).
    private(set) var longGOP: KeyframeCadence.Evidence?
    /// TARGETDURATION once the first video segment fixed it.
    private(set) var decidedTargetDuration: Int?
    /// The early first segment asked for (nil: none), as `KeyframeCadence` takes it.
    let firstSegment: EarlyFirstSegment?
    /// This session's first segment was cut early, before the source's second keyframe: the passthrough's next
    /// segment starts without one (so no EXT-X-INDEPENDENT-SEGMENTS for it).
    private(set) var cutFirstSegmentEarly = false
    /// The ladder bridged a session's first keyframe interval at the source size (sticky: the bridged rung stays the
    /// top rendition `video` for the stream's life, see `LLHLSStreamState.bridgedRung`).
    private(set) var bridgedFirstKeyframeInterval = false
    /// TARGETDURATION from the encoder's stated keyframe interval, when the first segment is cut early (its own length
    /// says nothing about the GOPs to come).
    private var statedTargetDuration: Int?

    init(segmentTarget: Duration, targetDuration: Int, firstSegment: EarlyFirstSegment? = nil) {
        self.segmentTarget = segmentTarget
        configuredTargetDuration = targetDuration
        self.firstSegment = firstSegment
    }

    /// Spacing of the long-GOP grid (shared with the ladder through `KeyframeCadence.gridTarget`).
    var gridTarget: Duration { KeyframeCadence.gridTarget(forSegmentTarget: segmentTarget) }

    /// TARGETDURATION while the first segment is open: the ceiling the first GOP may use before a cut is forced.
    var provisionalTargetDuration: Int { LLHLSConfiguration.wholeSeconds(atLeast: gridTarget) }

    /// The TARGETDURATION a first segment of `length` asks for: its rounded length, at least the configured one.
    func targetDuration(firstSegment length: MediaTime) -> Int {
        let seconds = Int(length.seconds.rounded())
        return min(provisionalTargetDuration, max(configuredTargetDuration, seconds))
    }

    /// A new publisher session: its keyframe cadence is learnt anew.
    mutating func restart() { cadence = nil }

    /// Feeds one source video frame at `time` (stream timeline); says whether the grid opens a segment there, and
    /// the evidence when this frame shows the GOP is too long.
    mutating func observe(
        _ frame: MediaFrame,
        at time: MediaTime,
        video: VideoParameters?
    ) -> (opensSegment: Bool, longGOP: KeyframeCadence.Evidence?) {
        var c =
            cadence
            ?? KeyframeCadence(
                target: gridTarget,
                frameRate: video?.frameRate,
                trustsEncoderSettings: !(video?.keyframesOnRequest ?? false),
                firstSegment: decidedTargetDuration == nil ? firstSegment?.applying(to: video) : nil
            )
        let ticks = time.converted(to: 90_000).value
        let found = c.observe(time: ticks, isKeyframe: frame.isKeyframe, data: frame.data)
        if let found { longGOP = found }
        if c.cutsFirstSegmentEarly, !cutFirstSegmentEarly, let stated = c.statedInterval {
            cutFirstSegmentEarly = true
            statedTargetDuration = targetDuration(
                firstSegment: MediaTime(value: Int64(min(stated, 3600) * 90_000), timescale: 90_000)
            )
        }
        if c.bridgesFirstKeyframeInterval { bridgedFirstKeyframeInterval = true }
        let opens = c.opensSegment(at: ticks)
        cadence = c
        return (opens, found)
    }

    /// Records the segment starts the source's muxer decided (the next gets MSN `nextMSN`); returns TARGETDURATION
    /// when these decide it.
    mutating func record(_ boundaries: [MediaTime], nextMSN: Int) -> Int? {
        for (i, b) in boundaries.enumerated() { starts.append((start: b, msn: nextMSN + i)) }
        if starts.count > Self.retainedStarts { starts.removeFirst(starts.count - Self.retainedStarts) }
        guard decidedTargetDuration == nil, starts.count >= 2 else { return nil }
        let td = statedTargetDuration ?? targetDuration(firstSegment: starts[1].start - starts[0].start)
        decidedTargetDuration = td
        return td
    }

    /// The source segment a rung IDR at `time` starts on, if it sits at one of the source's cuts.
    func start(near time: MediaTime) -> (start: MediaTime, msn: Int)? {
        let t = time.converted(to: 90_000)
        return starts.last { abs(($0.start - t).converted(to: 90_000).value) <= Self.rungCutTolerance.value }
    }
}
