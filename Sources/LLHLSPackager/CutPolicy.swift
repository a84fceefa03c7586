/// Where a rendition's muxer cuts segments; `RenditionMuxer.judge` is the one place it is read.
enum CutPolicy: Sendable, Equatable {
    /// The source's own track (video, or audio without video): a sync sample once the segment has about its target
    /// length, or a sample the grid marks (`TrackSample.opensSegment`: the early first segment); a segment the next
    /// keyframe would make too long is cut short, so EXTINF never exceeds TARGETDURATION.
    case sourceKeyframes
    /// A long-GOP source (keyframes further apart than the segment target): only where the grid marks a sample,
    /// keyframe or not; the length cap only guards against a grid that never came.
    case fixedGrid
    /// Audio beside video: at the last frame boundary a millisecond or more before each boundary video decided
    /// (`addBoundary`).
    case followsVideo
    /// A ladder rung: only at a sync sample within `tolerance` ticks of a source boundary, each boundary used once
    /// (B-frame sources put the source's cut a few frames earlier in decode order).
    case rung(tolerance: Int64)

    /// How far audio beside video stays short of video's edge, in its segments (`followsVideo`) and in what is listed
    /// (`RungAligner`): players sum the playlist's rounded durations into that edge, and hls.js 1.6 cuts audio off
    /// past it (hls.js#7321).
    static let audioShortOfVideo: Duration = .milliseconds(1)

    /// True when this track decides its own segment starts (reported through `decidedBoundaries` for the others).
    var decidesBoundaries: Bool {
        switch self {
        case .sourceKeyframes, .fixedGrid: true
        case .followsVideo, .rung: false
        }
    }
}
