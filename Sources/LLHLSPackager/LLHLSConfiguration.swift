import CodecFormats
import MediaCore

/// LL-HLS packaging settings (documented in Config/sluice.yaml under `hls:`).
public struct LLHLSConfiguration: Sendable, Equatable {
    /// Wanted part duration; advertised PART-TARGET snaps it to whole frames of the first source.
    public var partTarget: Duration = .milliseconds(200)
    /// Low-latency HLS (parts, preload hints, blocking reload); false serves classic HLS: complete segments only.
    public var lowLatency: Bool = true
    /// Segments are cut at the first keyframe once this long. 1 s puts players without LL-HLS (Chromium native,
    /// VLC, TVs: they start HOLD-BACK = 3 × TARGETDURATION back) near nginx-rtmp's 1 s fragments; a source with a
    /// longer keyframe interval raises TARGETDURATION to its first GOP, at most 2 s (`SegmentGrid`).
    public var segmentTarget: Duration = .seconds(1)
    /// An early first segment (nil: none; see `EarlyFirstSegment` for when it applies): every rendition cuts its
    /// first segment that long after the stream's first frame, so players that need a whole segment start well before
    /// the source's second keyframe. TARGETDURATION then comes from the encoder's stated keyframe interval.
    public var firstSegment: EarlyFirstSegment?
    /// The early first segment cuts a listed passthrough too, between its keyframes (`hls.first_segment_cuts_passthrough`):
    /// hls.js then starts about 0.6 s sooner, but the passthrough's second segment starts without an IDR, so its variant
    /// loses EXT-X-INDEPENDENT-SEGMENTS (Apple [A 7.4, 9.12]) for the stream's life. Off by default.
    public var firstSegmentCutsPassthrough = false
    /// A ladder replaces the passthrough with a rung at the source's size once the source's GOP proves long
    /// (`transcode.source_rendition: auto`): the first multivariant then waits for that rung, at most
    /// `RenditionListing.rungStartLimit`, instead of listing the passthrough it replaces.
    public var awaitsSourceRung = false
    /// Complete segments listed in each media playlist (Apple asks for ≥ 6).
    public var windowSegments: Int = 10
    /// DVR: how far back the live playlists reach (nil: `windowSegments` only). Parts stay listed only near the
    /// live edge (checklist P5), so a long window costs playlist bytes, not part listings.
    public var dvrWindow: Duration?

    /// Complete segments each media playlist lists: the window, or as many as the DVR window needs at the segment
    /// target (a longer first GOP only makes it reach further back).
    public var listedSegments: Int {
        guard let dvr = dvrWindow else { return windowSegments }
        return max(windowSegments, Int((dvr / segmentTarget).rounded(.up)))
    }
    /// Segments kept downloadable after leaving the playlist (≥ 3 × TARGETDURATION, [S §6.2.2]).
    public var retainedSegmentsAfterWindow: Int = 3
    /// How long a stream stays live, without ENDLIST, waiting for its publisher to reconnect.
    public var reconnectGrace: Duration = .seconds(10)
    /// How long a playlist request for a stream key that is not live yet waits for its publisher.
    public var startWait: Duration = .seconds(8)
    /// How long an ended stream's playlists and media stay served after ENDLIST.
    public var endedRetention: Duration = .seconds(60)

    /// Defaults.
    public init() {}

    /// EXT-X-TARGETDURATION: the segment target rounded up to whole seconds.
    public var targetDurationSeconds: Int { Self.wholeSeconds(atLeast: segmentTarget) }

    /// A segment length rounded up to the whole seconds a TARGETDURATION is written in (at least 1).
    static func wholeSeconds(atLeast length: Duration) -> Int {
        max(1, Int((length.secondsDouble - 0.000_001).rounded(.up)))
    }
}
