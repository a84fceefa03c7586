import HTTPClient
import LLHLSPackager
import Logging
import MediaCore
import NIOCore
import NIOPosix

/// A bench viewer that behaves like hls.js on classic live HLS (RFC 8216bis §6.3.4): polls the playlist every
/// half target duration, starts `liveSyncSegments` target durations behind the live edge (hls.js
/// `liveSyncDurationCount`), and downloads whole segments, fMP4 or MPEG-TS (nginx-rtmp).
public struct ClassicHLSViewer: Sendable {
    /// The multivariant or media playlist URL.
    public let playlistURL: String
    /// Directory to save the init segments, segments and `manifest.jsonl` in; nil saves nothing.
    public let saveMediaTo: String?
    /// How many target durations behind the live edge playback starts.
    public let liveSyncSegments: Int
    let logger: Logger
    let group: any EventLoopGroup

    /// A viewer of `playlistURL`.
    public init(playlistURL: String, saveMediaTo: String? = nil, liveSyncSegments: Int = 3, logger: Logger) {
        self.init(
            playlistURL: playlistURL,
            saveMediaTo: saveMediaTo,
            liveSyncSegments: liveSyncSegments,
            logger: logger,
            group: MultiThreadedEventLoopGroup.singleton
        )
    }

    /// A viewer whose connections run on `group`.
    public init(
        playlistURL: String,
        saveMediaTo: String? = nil,
        liveSyncSegments: Int = 3,
        logger: Logger,
        group: any EventLoopGroup
    ) {
        self.playlistURL = playlistURL
        self.saveMediaTo = saveMediaTo
        self.liveSyncSegments = liveSyncSegments
        self.logger = logger
        self.group = group
    }

    /// Watches until `deadline` (or EXT-X-ENDLIST) and reports every frame received.
    public func run(until deadline: ContinuousClock.Instant) async throws(BenchError) -> ViewerReport {
        let joinedAt = WallTime.now()
        let entry = try HTTPLocation(parsing: playlistURL)
        let session = ViewerSession(
            origin: entry,
            group: group,
            deadline: deadline,
            logger: logger,
            recorder: try ViewerRecorder(saveDirectory: saveMediaTo, logger: logger)
        )
        let startPosition = await watch(entry, session: session)
        await session.close()
        return await session.report(joinedAt: joinedAt, startPosition: startPosition)
    }

    /// The join and polling loop; returns the timeline position playback starts at (nil if it never joined).
    private func watch(_ entry: HTTPLocation, session: ViewerSession) async -> Duration? {
        let deadline = session.deadline
        let complete: @Sendable (ReadPlaylist) -> Bool = { $0.segments.contains { $0.uri != nil } }
        guard let found = await session.mediaPlaylist(from: entry, until: complete) else { return nil }
        let mediaURL = found.0
        var playlist = found.1
        var segments = playlist.segments.filter { $0.uri != nil }
        // hls.js liveSyncPosition: edge − liveSyncDurationCount × EXT-X-TARGETDURATION.
        var starts: [Double] = []
        var edge = 0.0
        for segment in segments {
            starts.append(edge)
            edge += segment.duration
        }
        let target = max(0, edge - Double(liveSyncSegments) * playlist.targetDuration)
        let joinIndex = starts.lastIndex { $0 <= target } ?? 0
        let join = segments[joinIndex]
        logger.debug("joining", metadata: ["msn": "\(join.msn)", "edge": "\(edge)", "target": "\(target)"])
        var startPosition: Duration?
        var lastMSN = join.msn - 1
        segments = Array(segments[joinIndex...])
        let poll = Duration.milliseconds(Int64(max(0.1, playlist.targetDuration / 2) * 1_000))
        while ContinuousClock.now < deadline {
            for segment in segments where segment.msn > lastMSN {
                guard ContinuousClock.now < deadline, let uri = segment.uri else { break }
                lastMSN = segment.msn
                if segment.gap { continue }
                let positions =
                    uri.hasSuffix(".ts") || uri.contains(".ts?")
                    ? await session.downloadTS(uri: uri, name: "\(segment.msn).ts", segment: segment, base: mediaURL)
                    : await session.downloadFMP4(
                        uri: uri,
                        name: "\(MediaFileName.segment(segment.msn))",
                        kind: "segment",
                        segment: segment,
                        startsSegment: true,
                        base: mediaURL
                    )
                if segment.msn == join.msn, let earliest = positions.min() {
                    startPosition = earliest + .milliseconds(Int64(((target - starts[joinIndex]) * 1_000).rounded()))
                }
            }
            if playlist.endList { break }
            let wait = min(poll, deadline - ContinuousClock.now)
            if wait > .zero { try? await Task.sleep(for: wait) }
            guard let reloaded = await session.playlist(at: mediaURL) else { continue }
            playlist = reloaded
            segments = reloaded.segments.filter { $0.uri != nil && $0.msn > lastMSN }
            if let first = segments.first, first.msn > lastMSN + 1 {
                await session.error("segments \(lastMSN + 1)..<\(first.msn) left the playlist before they were read")
            }
        }
        return startPosition
    }
}
