/// An early first segment (`hls.first_segment_s`): players refuse a playlist without one whole segment (hls.js:
/// `levelEmptyError`), so a first segment shorter than the source's keyframe interval is what lets them start inside
/// that interval. The cut must land on an IDR in every listed rendition, so it applies only where every listed
/// video rendition is encoded here: a long-GOP source (the ladder replaces the passthrough, or the passthrough is cut
/// between keyframes anyway), or any source when the top rendition is always transcoded.
public struct EarlyFirstSegment: Sendable, Hashable {
    /// How long after the stream's first frame the first segment ends.
    public var length: Duration
    /// A source whose keyframes come often gets the cut too (`transcode.source_rendition: transcode`: no passthrough is
    /// listed, so no listed segment starts without a keyframe).
    public var evenWithShortGOPs: Bool

    /// An early cut `length` in; `evenWithShortGOPs` when every listed video rendition is transcoded.
    public init(length: Duration, evenWithShortGOPs: Bool = false) {
        self.length = length
        self.evenWithShortGOPs = evenWithShortGOPs
    }
}
