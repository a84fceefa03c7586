import FMP4
import MediaCore

/// One rendition's muxer (per publishing session) and what it published (kept across sessions).
struct TrackPipeline: Sendable {
    /// Video or audio.
    let kind: MediaKind
    /// Track ticks per second.
    let timescale: Int32
    /// The current session's cutter.
    var muxer: RenditionMuxer
    /// Published parts, segments and init sections.
    var rendition: PublishedRendition
    /// Codec parameters of the current session.
    var parameters: FMP4Track.Media
    /// Audio: where the next frame should start, to absorb RTMP's millisecond rounding.
    var expectedNextDTS: Int64?

    /// End of everything published on the stream timeline.
    var publishedEnd: MediaTime? {
        guard let s = rendition.segments.last else { return nil }
        return MediaTime(value: s.startDTS + s.duration, timescale: s.timescale)
    }
}

/// Builds muxers with the stream's fixed timing.
struct MuxerFactory: Sendable {
    /// PART-TARGET in seconds (fixed for the stream's life: CoreMedia rejects changes, mediamtx#6237).
    let partTarget: Double
    /// Segment target in seconds.
    let segmentTarget: Double
    /// TARGETDURATION in seconds.
    let targetDuration: Int

    func make(kind: MediaKind, timescale: Int32, followsBoundaries: Bool) -> RenditionMuxer {
        let ts = Double(timescale)
        return RenditionMuxer(
            trackID: 1,
            timescale: Int64(timescale),
            partTarget: Int64((partTarget * ts).rounded(.down)),
            segmentTarget: Int64(segmentTarget * ts),
            segmentLimit: Self.segmentLimit(targetDuration: targetDuration, timescale: timescale),
            followsBoundaries: followsBoundaries
        )
    }

    /// Longest segment in ticks: EXTINF rounds to nearest, so stay below TARGETDURATION + 0.5 s (RFC 8216bis §4.4.3.1).
    static func segmentLimit(targetDuration: Int, timescale: Int32) -> Int64 {
        Int64((Double(targetDuration) + 0.45) * Double(timescale))
    }

    /// Snaps the wanted part duration to whole frames of the source, rounded up to the next millisecond plus one (jitter of RTMP's ms timestamps).
    static func partTarget(wanted: Duration, frameRate: Double?) -> Double {
        let w = wanted.secondsDouble
        // Unknown rate (WebRTC: timestamps from a jittering capture clock): 10 % room, or parts close a frame early (P3).
        guard let fps = frameRate, fps > 1, fps < 241 else {
            return Double((Int((w * 1000).rounded()) * 11 + 9) / 10) / 1000
        }
        let frames = max(1, (w * fps).rounded())
        let exact = frames / fps
        return ((exact * 1000).rounded(.up) + 1) / 1000
    }
}
