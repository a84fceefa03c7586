import CodecFormats
import HTTPClient
import Logging
import MediaCore
import NIOCore
import NIOPosix

/// A bench viewer that behaves like hls.js in low-latency mode (RFC 8216bis §6.2.5.2, §6.3.7) on the watch page:
/// joins PART-HOLD-BACK behind the live edge, then blocking reloads with `_HLS_msn`/`_HLS_part` for the next part,
/// downloading each new part; reads every video frame's capture clock from its SEI. It plays where the watch page's
/// keeper holds hls.js: PART-HOLD-BACK behind the edge as hls.js extrapolates it (the newest playlist's edge plus
/// the time since it arrived), measured at the first blocking reload, which answers as the next part is published.
public struct LLHLSViewer: Sendable {
    /// The multivariant or media playlist URL; a media playlist names the rendition watched, a multivariant
    /// playlist means its first variant (the source).
    public let playlistURL: String
    /// Directory to save the init segments, parts and `manifest.jsonl` in; nil saves nothing.
    public let saveMediaTo: String?
    let logger: Logger
    let group: any EventLoopGroup

    /// A viewer of `playlistURL`.
    public init(playlistURL: String, saveMediaTo: String? = nil, logger: Logger) {
        self.init(
            playlistURL: playlistURL,
            saveMediaTo: saveMediaTo,
            logger: logger,
            group: MultiThreadedEventLoopGroup.singleton
        )
    }

    /// A viewer whose connections run on `group`.
    public init(playlistURL: String, saveMediaTo: String? = nil, logger: Logger, group: any EventLoopGroup) {
        self.playlistURL = playlistURL
        self.saveMediaTo = saveMediaTo
        self.logger = logger
        self.group = group
    }

    /// Watches until `deadline` (or EXT-X-ENDLIST, or a blocking reload timed out after `publisherEnds`) and
    /// reports every frame received.
    public func run(
        until deadline: ContinuousClock.Instant,
        publisherEnds: ContinuousClock.Instant? = nil
    ) async throws(BenchError) -> ViewerReport {
        let joinedAt = WallTime.now()
        let entry = try HTTPLocation(parsing: playlistURL)
        let session = ViewerSession(
            origin: entry,
            group: group,
            deadline: deadline,
            publisherEnds: publisherEnds,
            logger: logger,
            recorder: try ViewerRecorder(saveDirectory: saveMediaTo, logger: logger)
        )
        let startPosition = await watch(entry, session: session)
        await session.close()
        return await session.report(joinedAt: joinedAt, startPosition: startPosition)
    }

    /// The join and reload loop; returns the timeline position playback starts at (nil if it never joined).
    private func watch(_ entry: HTTPLocation, session: ViewerSession) async -> Duration? {
        let deadline = session.deadline
        guard let (mediaURL, first) = await session.mediaPlaylist(from: entry, until: { !$0.parts.isEmpty }) else {
            return nil
        }
        var playlist = first
        // Join: the part PART-HOLD-BACK from the end, fetched from the independent part at or before it.
        let holdBack = playlist.partHoldBack ?? 3 * (playlist.partTarget ?? 0.2)
        let timeline = PartTimeline(playlist)
        let target = max(0, timeline.edge - holdBack)
        let joinIndex = timeline.entries.lastIndex { $0.start <= target } ?? 0
        let fetchFrom = timeline.entries[...joinIndex].lastIndex { $0.part.independent } ?? 0
        let join = timeline.entries[joinIndex]
        logger.debug(
            "joining",
            metadata: [
                "part": "\(join.part.msn).\(join.part.index)", "edge": "\(timeline.edge)", "target": "\(target)",
            ]
        )
        var startPosition: Duration?
        var joined: (earliest: Duration, at: WallTime)?
        var settled = false
        var last: (msn: Int, index: Int)?
        var pending = Array(timeline.entries[fetchFrom...])
        while ContinuousClock.now < deadline {
            for entry in pending {
                guard ContinuousClock.now < deadline else { break }
                last = (entry.part.msn, entry.part.index)
                if entry.part.gap { continue }
                let positions = await session.download(
                    part: entry.part,
                    segment: entry.segment,
                    base: mediaURL
                )
                if entry.part.msn == join.part.msn, entry.part.index == join.part.index, let earliest = positions.min()
                {
                    startPosition = earliest + .milliseconds(Int64(((target - join.start) * 1_000).rounded()))
                    joined = (earliest, WallTime.now())
                }
            }
            pending = []
            if playlist.endList { break }
            // Blocking reload for the part after the last one listed (§6.2.5.2: an index past the segment's
            // last part means part 0 of the next segment).
            guard let lastListed = playlist.segments.last else { break }
            let next =
                lastListed.uri == nil
                ? (msn: lastListed.msn, part: (lastListed.parts.last?.index ?? -1) + 1)
                : (msn: lastListed.msn + 1, part: 0)
            let reloadURL = mediaURL.addingQuery([("_HLS_msn", "\(next.msn)"), ("_HLS_part", "\(next.part)")])
            let timeout = Duration.milliseconds(Int64(playlist.targetDuration * 3_000)) + .seconds(1)
            guard let reloaded = await session.playlist(at: reloadURL, timeout: timeout, blockingReload: true) else {
                if await session.streamEnded { break }
                continue
            }
            playlist = reloaded
            let reloadedTimeline = PartTimeline(reloaded)
            if !settled, let joined,
                let settledAt = Self.settledStart(
                    reloadedTimeline,
                    join: join.part,
                    joined: joined,
                    holdBack: holdBack,
                    answeredAt: WallTime.now()
                )
            {
                startPosition = settledAt
                settled = true
            }
            let entries = reloadedTimeline.entries
            pending = entries.filter { e in last.map { (e.part.msn, e.part.index) > ($0.msn, $0.index) } ?? true }
            if let l = last, let firstNew = pending.first,
                (firstNew.part.msn, firstNew.part.index) != (l.msn, l.index + 1),
                (firstNew.part.msn, firstNew.part.index) != (l.msn + 1, 0)
            {
                await session.error("parts after \(l.msn).\(l.index) left the playlist before they were read")
            }
        }
        return startPosition
    }

    /// The start that puts the player `holdBack` behind the edge of a blocking reload answered at `answeredAt`, for a
    /// playback clock that started as the join part (first frame at `joined.earliest`) arrived at `joined.at`; nil
    /// when the join part has left the playlist.
    static func settledStart(
        _ timeline: PartTimeline,
        join: ReadPlaylist.Part,
        joined: (earliest: Duration, at: WallTime),
        holdBack: Double,
        answeredAt: WallTime
    ) -> Duration? {
        guard let entry = timeline.entries.first(where: { $0.part.msn == join.msn && $0.part.index == join.index })
        else { return nil }
        let edge = joined.earliest + .milliseconds(Int64(((timeline.edge - entry.start) * 1_000).rounded()))
        return edge - .milliseconds(Int64((holdBack * 1_000).rounded())) - answeredAt.duration(since: joined.at)
    }
}

/// The parts of a media playlist on one timeline: each part's start (seconds from the first listed item) and
/// its segment; the edge is the end of the last part.
struct PartTimeline {
    /// A part, where it starts, and its parent segment.
    struct Entry {
        var part: ReadPlaylist.Part
        var segment: ReadPlaylist.Segment
        var start: Double
    }

    private(set) var entries: [Entry] = []
    private(set) var edge: Double = 0

    init(_ playlist: ReadPlaylist) {
        for segment in playlist.segments {
            if segment.parts.isEmpty {
                edge += segment.duration
                continue
            }
            for part in segment.parts {
                entries.append(Entry(part: part, segment: segment, start: edge))
                edge += part.duration
            }
        }
    }
}
