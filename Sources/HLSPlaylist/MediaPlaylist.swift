import MediaCore

/// A live LL-HLS media playlist (RFC 8216bis §4.4.3–§4.4.5) and its renderer.
public struct MediaPlaylist: Sendable, Equatable {
    /// EXT-X-TARGETDURATION in whole seconds.
    public var targetDuration: Int
    /// EXT-X-PART-INF PART-TARGET; nil for a classic playlist.
    public var partTarget: MediaTime?
    /// EXT-X-SERVER-CONTROL.
    public var serverControl: ServerControl?
    /// MSN of the first listed segment.
    public var mediaSequence: Int
    /// EXT-X-DISCONTINUITY-SEQUENCE.
    public var discontinuitySequence: Int
    /// Segments in order; the last may be open (parts only).
    public var segments: [MediaSegment]
    /// EXT-X-PRELOAD-HINT TYPE=PART URI.
    public var preloadHintURI: String?
    /// Reports for the other renditions.
    public var renditionReports: [RenditionReport]
    /// EXT-X-ENDLIST.
    public var endList: Bool
    /// EXT-X-INDEPENDENT-SEGMENTS (every segment starts with an IDR).
    public var independentSegments: Bool

    /// Creates a playlist.
    public init(
        targetDuration: Int,
        partTarget: MediaTime?,
        serverControl: ServerControl?,
        mediaSequence: Int,
        discontinuitySequence: Int = 0,
        segments: [MediaSegment],
        preloadHintURI: String? = nil,
        renditionReports: [RenditionReport] = [],
        endList: Bool = false,
        independentSegments: Bool = false
    ) {
        self.targetDuration = targetDuration
        self.partTarget = partTarget
        self.serverControl = serverControl
        self.mediaSequence = mediaSequence
        self.discontinuitySequence = discontinuitySequence
        self.segments = segments
        self.preloadHintURI = preloadHintURI
        self.renditionReports = renditionReports
        self.endList = endList
        self.independentSegments = independentSegments
    }

    /// Renders the full playlist, or a delta update replacing `skipping` leading segments with EXT-X-SKIP (§4.4.5.2).
    public func render(skipping: Int = 0) -> String {
        let skip = min(max(0, skipping), segments.count)
        var out: [String] = ["#EXTM3U"]
        // v6 covers EXT-X-MAP; EXT-X-SKIP needs v9 (RFC 8216bis §8).
        out.append("#EXT-X-VERSION:\(skip > 0 ? 9 : 6)")
        out.append("#EXT-X-TARGETDURATION:\(targetDuration)")
        if independentSegments { out.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        if let sc = serverControl { out.append(sc.render()) }
        if let pt = partTarget { out.append("#EXT-X-PART-INF:PART-TARGET=\(PlaylistDecimal.format(pt))") }
        out.append("#EXT-X-MEDIA-SEQUENCE:\(mediaSequence)")
        out.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence)")
        // MEDIA-SEQUENCE precedes SKIP: hls.js failed the reverse order until #7905.
        if skip > 0 { out.append("#EXT-X-SKIP:SKIPPED-SEGMENTS=\(skip)") }
        var currentMap = skip > 0 ? segments[..<skip].last(where: { $0.mapURI != nil })?.mapURI : nil
        if let m = currentMap { out.append("#EXT-X-MAP:URI=\(quoted(m))") }
        for segment in segments[skip...] {
            if segment.discontinuity { out.append("#EXT-X-DISCONTINUITY") }
            if let m = segment.mapURI, m != currentMap {
                out.append("#EXT-X-MAP:URI=\(quoted(m))")
                currentMap = m
            }
            if let pdt = segment.programDateTime { out.append("#EXT-X-PROGRAM-DATE-TIME:\(pdt.iso8601)") }
            for part in segment.parts { out.append(part.render()) }
            if let uri = segment.uri {
                if segment.gap { out.append("#EXT-X-GAP") }
                out.append("#EXTINF:\(PlaylistDecimal.duration(segment.duration)),")
                out.append(uri)
            }
        }
        if endList {
            out.append("#EXT-X-ENDLIST")
        } else if let hint = preloadHintURI {
            out.append("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\(quoted(hint))")
        }
        for report in renditionReports { out.append(report.render()) }
        return out.joined(separator: "\n") + "\n"
    }

    /// How many leading complete segments a delta update may skip: those ending more than the Skip Boundary before the last segment's end (§6.2.5.1).
    public func skippableSegmentCount() -> Int {
        guard let boundary = serverControl?.canSkipUntil, !endList else { return 0 }
        var fromEnd = 0.0
        var index = segments.count
        // Walk back from the live edge: segments wholly older than the boundary may be skipped.
        for (i, s) in segments.enumerated().reversed() {
            fromEnd += s.duration.seconds
            index = i
            if fromEnd > boundary.secondsDouble { break }
        }
        guard fromEnd > boundary.secondsDouble else { return 0 }
        // Skipped discontinuities stay counted: the client merges the delta into its copy (hls.js#6949 fixed this).
        return segments[..<index].allSatisfy({ $0.isComplete }) ? index : 0
    }
}
