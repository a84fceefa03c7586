import CodecFormats

/// The ABR ladder: which rungs to encode below the passthrough source, and how.
public struct LadderConfiguration: Sendable, Hashable {
    /// One encoded rendition, named after its height.
    public struct Rung: Sendable, Hashable {
        /// Rendition name, used in the derived hub key (`source~480p`).
        public var name: String
        /// Output height in pixels; the width follows the source's aspect ratio.
        public var height: Int
        /// Target average video bit rate.
        public var videoBitRate: BitRate

        /// A rung.
        public init(name: String, height: Int, videoBitRate: BitRate) {
            self.name = name
            self.height = height
            self.videoBitRate = videoBitRate
        }
    }

    /// The default ladder for a 720p30 source: 720p/2800k, 480p/1400k, 360p/800k.
    public static let defaultRungs: [Rung] = [
        Rung(name: "720p", height: 720, videoBitRate: BitRate(kbps: 2_800)),
        Rung(name: "480p", height: 480, videoBitRate: BitRate(kbps: 1_400)),
        Rung(name: "360p", height: 360, videoBitRate: BitRate(kbps: 800)),
    ]

    /// What the top rendition is: the source passed through, or a rung transcoded at the source's size.
    public enum SourceRendition: String, Sendable, Hashable, CaseIterable {
        /// Pass the source through unless its keyframe interval exceeds the segment target (then transcode it).
        case auto
        /// Always pass the source through (a long-GOP source then has segments that start without a keyframe).
        case passthrough
        /// Always transcode the top rendition at the source's size (IDRs on the ladder's grid, no B-frames).
        case transcode
    }

    /// Candidate rungs, any order; those at or above the source height are skipped.
    public var rungs: [Rung] = LadderConfiguration.defaultRungs
    /// Most rungs encoded per source (the highest ones that fit are kept).
    public var maxRungs: Int = 3
    /// Top rendition policy (`transcode.source_rendition`).
    public var sourceRendition: SourceRendition = .auto
    /// With `auto`, a source without B-frames whose encoder states its keyframe interval gets its top rendition
    /// encoded at the source size until its second keyframe, then the source's own frames (`transcode.fast_start`):
    /// the early first segment then has an IDR at its cut in every rendition. Players know the bridged rung as
    /// `video` (the packager's `bridgedRung`).
    public var fastStart = true
    /// The packager's segment target: a long-GOP source gets rung IDRs this far apart (`hls.segment_target_s`).
    public var segmentTarget: Duration = .seconds(2)
    /// The packager's early first segment (`hls.first_segment_s`): where it applies, rungs get an IDR there too.
    public var firstSegment: EarlyFirstSegment?
    /// x264 preset for every rung.
    public var preset: String = "veryfast"
    /// x264 threads per rung; 0 shares the machine's cores between the rungs by their pixels (`LadderPlan.encoderThreads`).
    public var encoderThreads: Int = 0
    /// Frames the hub buffers for the transcoder before it drops the oldest.
    public var readerCapacity: Int = 512
    /// Access units queued for the decoder thread before new ones are dropped.
    public var decoderQueueCapacity: Int = 60
    /// Decoded pictures queued per rung before that rung drops until the next source keyframe.
    public var rungQueueCapacity: Int = 30
    /// What the ladder gives up, in which order, when it cannot keep up (`transcode.shed`).
    public var shedding = LoadSheddingPolicy()

    /// The default ladder.
    public init() {}

    /// A ladder of `rungs` with the given preset.
    public init(rungs: [Rung], maxRungs: Int = 3, preset: String = "veryfast") {
        self.rungs = rungs
        self.maxRungs = maxRungs
        self.preset = preset
    }
}
