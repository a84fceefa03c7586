import RTMPWire

/// The hints a publisher declares in `onMetaData` (FLV spec v10.1 §E.5, "onMetaData").
public struct StreamMetadata: Equatable, Sendable {
    /// Declared width in pixels.
    public var width: Int?
    /// Declared height in pixels.
    public var height: Int?
    /// Declared frames per second.
    public var frameRate: Double?
    /// Whether a video track will follow (default true).
    public var hasVideo: Bool = true
    /// Whether an audio track will follow (default true).
    public var hasAudio: Bool = true

    /// Metadata that announces both tracks and nothing else.
    public init(
        width: Int? = nil,
        height: Int? = nil,
        frameRate: Double? = nil,
        hasVideo: Bool = true,
        hasAudio: Bool = true
    ) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.hasVideo = hasVideo
        self.hasAudio = hasAudio
    }

    /// Reads the onMetaData object or ECMA array.
    public init(_ value: AMF0Value) {
        width = value["width"]?.number.flatMap { $0.isFinite && $0 >= 0 && $0 < 1e6 ? Int($0) : nil }
        height = value["height"]?.number.flatMap { $0.isFinite && $0 >= 0 && $0 < 1e6 ? Int($0) : nil }
        frameRate = value["framerate"]?.number ?? value["videoframerate"]?.number
        // Without explicit flags, a listed codec id for one track but not the other means that track is absent.
        let declaresCodecs = value["videocodecid"] != nil || value["audiocodecid"] != nil
        hasVideo = value["hasVideo"]?.boolean ?? (declaresCodecs ? value["videocodecid"] != nil : true)
        hasAudio = value["hasAudio"]?.boolean ?? (declaresCodecs ? value["audiocodecid"] != nil : true)
    }
}
