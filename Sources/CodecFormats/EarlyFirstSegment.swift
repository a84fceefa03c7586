import MediaCore

/// An early first segment (`hls.first_segment_s`): players refuse a playlist without one whole segment (hls.js:
/// `levelEmptyError`), so a first segment shorter than the source's keyframe interval is what lets them start inside
/// that interval. The cut must land on an IDR in every listed rendition, so it applies only where every listed
/// video rendition is encoded here: a long-GOP source (the ladder replaces the passthrough, or the passthrough is cut
/// between keyframes anyway), any source when the top rendition is always transcoded, or a source without B-frames
/// whose first keyframe interval the ladder bridges at the source size (`bridgesShortGOPs`).
public struct EarlyFirstSegment: Sendable, Hashable {
    /// How long after the stream's first frame the first segment ends.
    public var length: Duration
    /// A source whose keyframes come often gets the cut too (`transcode.source_rendition: transcode`: no passthrough is
    /// listed, so no listed segment starts without a keyframe).
    public var evenWithShortGOPs: Bool
    /// A source whose keyframes come often gets the cut when its encoder states no B-frames: the ladder encodes the
    /// top rendition at the source size until the source's second keyframe, then sends the source's own frames
    /// (`transcode.fast_start`), so the cut lands on an IDR there too.
    public var bridgesShortGOPs: Bool

    /// Largest source bridged, in pixels per second: 1280x720 at 30 fps. The bridge encodes the source's size on top of
    /// the ladder; a 1080p60 bridge on one core ran at 2.4 × real time (e2e test_overload), holding every rendition's
    /// start back by seconds, far more than the 0.6 s it saves.
    public static let bridgedPixelRateLimit = 1280.0 * 720 * 30

    /// This setting for `source`: no bridge above `bridgedPixelRateLimit` (30 fps when the rate is unknown). The
    /// packager and the ladder both decide from it, so they cut alike.
    public func applying(to source: VideoParameters?) -> EarlyFirstSegment {
        guard let source else { return self }
        var s = self
        let rate = Double(source.width * source.height) * (source.frameRate ?? 30)
        if rate > Self.bridgedPixelRateLimit * 1.001 { s.bridgesShortGOPs = false }
        return s
    }

    /// `length` in 90 kHz ticks, where the packager and the ladder place the cut.
    public var lengthTicks: Int64 { Int64((length.secondsDouble * 90_000).rounded()) }

    /// An early cut `length` in; `evenWithShortGOPs` when every listed video rendition is transcoded,
    /// `bridgesShortGOPs` when the ladder bridges the first keyframe interval.
    public init(length: Duration, evenWithShortGOPs: Bool = false, bridgesShortGOPs: Bool = false) {
        self.length = length
        self.evenWithShortGOPs = evenWithShortGOPs
        self.bridgesShortGOPs = bridgesShortGOPs
    }
}
