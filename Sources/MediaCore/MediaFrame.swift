/// Which kind of track a frame belongs to.
public enum MediaKind: String, Sendable, Hashable {
    case video
    case audio
}

/// One encoded access unit on its way through the gateway.
public struct MediaFrame: Sendable {
    /// Video or audio.
    public var kind: MediaKind
    /// Decode time on the stream timeline.
    public var dts: MediaTime
    /// Presentation time minus decode time (non-zero with B-frames), same timescale as `dts`.
    public var compositionOffset: MediaTime
    /// True for an IDR access unit (video) or every frame (audio).
    public var isKeyframe: Bool
    /// H.264: length-prefixed NAL units (4-byte lengths, AVCC); AAC: one raw access unit.
    public var data: [UInt8]
    /// The hops this frame passed.
    public var stamps: HopStamps

    /// Creates a frame.
    public init(
        kind: MediaKind,
        dts: MediaTime,
        compositionOffset: MediaTime? = nil,
        isKeyframe: Bool,
        data: [UInt8],
        stamps: HopStamps = HopStamps()
    ) {
        self.kind = kind
        self.dts = dts
        self.compositionOffset = compositionOffset ?? .zero(timescale: dts.timescale)
        self.isKeyframe = isKeyframe
        self.data = data
        self.stamps = stamps
    }

    /// Presentation time.
    public var pts: MediaTime { dts + compositionOffset }
}
