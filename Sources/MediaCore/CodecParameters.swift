/// The codecs Sluice carries.
public enum Codec: String, Sendable, Hashable {
    case h264
    /// H.265 from E-RTMP (`hvc1`), length-prefixed NAL units like H.264.
    case hevc
    /// AV1 from E-RTMP (`av01`), temporal units of low-overhead OBUs.
    case av1
    case aac
    case opus
}

/// What a decoder needs to start a video track.
public struct VideoParameters: Sendable, Hashable {
    /// `.h264`, or `.hevc` / `.av1` from E-RTMP; `decoderConfiguration` is then an hvcC / av1C record.
    public var codec: Codec
    /// avcC (ISO/IEC 14496-15 §5.3.3.1), hvcC (§8.3.3.1) or av1C, as carried in (E-)FLV and the sample entry.
    public var decoderConfiguration: [UInt8]
    /// Coded picture width in pixels, from the SPS.
    public var width: Int
    /// Coded picture height in pixels, from the SPS.
    public var height: Int
    /// RFC 6381 codec string from the SPS, e.g. `avc1.64001f`.
    public var codecString: String
    /// Nominal frame rate if the source declared one (onMetaData or SPS VUI).
    public var frameRate: Double?
    /// The ingest asks the encoder for keyframes itself (WHIP sends a PLI every segment target), so the keyframe
    /// interval the encoder states in its stream (x264's `keyint`) says nothing about where keyframes will come.
    public var keyframesOnRequest = false

    /// Creates video parameters.
    public init(
        codec: Codec = .h264,
        decoderConfiguration: [UInt8],
        width: Int,
        height: Int,
        codecString: String,
        frameRate: Double? = nil
    ) {
        self.codec = codec
        self.decoderConfiguration = decoderConfiguration
        self.width = width
        self.height = height
        self.codecString = codecString
        self.frameRate = frameRate
    }

    /// True for codecs whose frames are length-prefixed NAL units (H.264, HEVC).
    public var isNALBased: Bool { codec == .h264 || codec == .hevc }
}

/// What a decoder needs to start an audio track.
public struct AudioParameters: Sendable, Hashable {
    /// `.aac` (or `.opus` from WebRTC).
    public var codec: Codec
    /// The AudioSpecificConfig (ISO/IEC 14496-3 §1.6.2.1) for AAC; the OpusHead for Opus.
    public var decoderConfiguration: [UInt8]
    /// Output sample rate in Hz.
    public var sampleRate: Int
    /// Channel count.
    public var channels: Int
    /// Samples per coded frame (1024 for AAC-LC).
    public var samplesPerFrame: Int
    /// RFC 6381 codec string, e.g. `mp4a.40.2`.
    public var codecString: String

    /// Creates audio parameters.
    public init(
        codec: Codec = .aac,
        decoderConfiguration: [UInt8],
        sampleRate: Int,
        channels: Int,
        samplesPerFrame: Int = 1024,
        codecString: String
    ) {
        self.codec = codec
        self.decoderConfiguration = decoderConfiguration
        self.sampleRate = sampleRate
        self.channels = channels
        self.samplesPerFrame = samplesPerFrame
        self.codecString = codecString
    }
}

/// The tracks of one published stream; either may be absent (audio-only, video-only).
public struct StreamDescription: Sendable, Hashable {
    /// The video track, if any.
    public var video: VideoParameters?
    /// The audio track, if any.
    public var audio: AudioParameters?
    /// Changes when another encoder's output follows on the same stream (a backup or the slate took the air):
    /// players need a discontinuity there even where the parameters match (RFC 8216bis §4.4.4.3).
    public var encodingSequence = 0

    /// Creates a description.
    public init(video: VideoParameters? = nil, audio: AudioParameters? = nil, encodingSequence: Int = 0) {
        self.video = video
        self.audio = audio
        self.encodingSequence = encodingSequence
    }
}
