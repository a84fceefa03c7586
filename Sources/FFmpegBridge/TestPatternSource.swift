import CodecFormats
import MediaCore

/// A synthetic live source: a moving test picture encoded with libx264 (or libx265, SVT-AV1) and a sine tone encoded
/// with AAC.
public final class TestPatternSource: MediaSource {
    /// What to generate; defaults give 1280x720 at 30 fps, 1 s GOP, no B-frames, 2.5 Mb/s, 440 Hz tone.
    public struct Configuration: Sendable, Hashable {
        /// Picture width in pixels (even).
        public var width: Int = 1280
        /// Picture height in pixels (even).
        public var height: Int = 720
        /// Frames per second.
        public var fps: Int = 30
        /// The video codec: h264 (libx264), hevc (libx265) or av1 (SVT-AV1, no B-frames).
        public var videoCodec: Codec = .h264
        /// Frames per GOP; nil means one second (`fps` frames).
        public var gop: Int?
        /// Consecutive B-frames (0 keeps zerolatency's no-B behaviour).
        public var bFrames: Int = 0
        /// Target video bit rate in bits per second.
        public var videoBitRate: Int = 2_500_000
        /// Hold `videoBitRate` exactly (HRD CBR with filler data), as a camera or OBS in CBR mode does; without it
        /// x264 spends far less on the simple pattern than on a real picture.
        public var constantBitRate = false
        /// Tone frequency in Hz.
        public var toneFrequency: Double = 440
        /// Audio sample rate in Hz.
        public var audioSampleRate: Int = 48_000
        /// Target audio bit rate in bits per second.
        public var audioBitRate: Int = 128_000
        /// Stop after this much media time; nil runs forever.
        public var duration: Duration?

        /// Frames per GOP after applying the one-second default.
        public var gopFrames: Int { gop ?? fps }

        /// Creates a configuration.
        public init(
            width: Int = 1280,
            height: Int = 720,
            fps: Int = 30,
            gop: Int? = nil,
            bFrames: Int = 0,
            videoBitRate: Int = 2_500_000,
            videoCodec: Codec = .h264,
            duration: Duration? = nil
        ) {
            self.width = width
            self.height = height
            self.fps = fps
            self.gop = gop
            self.bFrames = bFrames
            self.videoBitRate = videoBitRate
            self.videoCodec = videoCodec
            self.duration = duration
        }
    }

    /// The configuration in use.
    public let configuration: Configuration
    public let streamDescription: StreamDescription
    private let video: PatternVideoEncoder
    private let audio: ToneAudioEncoder
    private var interleaver = FrameInterleaver(kinds: [.video, .audio])

    /// Opens the encoders; throws if the video encoder or aac is missing or rejects the settings.
    public init(configuration: Configuration = Configuration()) throws(FFmpegError) {
        guard configuration.width > 0, configuration.height > 0, configuration.width % 2 == 0,
            configuration.height % 2 == 0, configuration.fps > 0, configuration.gopFrames > 0,
            configuration.bFrames >= 0
        else {
            throw FFmpegError(message: "invalid test pattern settings \(configuration)", context: "TestPatternSource")
        }
        self.configuration = configuration
        video = try PatternVideoEncoder(configuration)
        audio = try ToneAudioEncoder(configuration)
        do {
            streamDescription = StreamDescription(
                video: try PatternEncoderSetup.videoParameters(
                    configuration.videoCodec,
                    record: video.decoderConfiguration,
                    frameRate: Double(configuration.fps)
                ),
                audio: try AudioParameters(audioSpecificConfig: audio.audioSpecificConfig)
            )
        } catch {
            throw FFmpegError(message: "encoder headers did not parse: \(error)", context: "TestPatternSource")
        }
    }

    /// The default picture and tone, stopping after `duration` (nil: never).
    public convenience init(duration: Duration?) throws(FFmpegError) {
        try self.init(configuration: Configuration(duration: duration))
    }

    public func nextFrame() throws(FFmpegError) -> MediaFrame? {
        while true {
            if let frame = interleaver.pop() { return frame }
            if interleaver.isDone { return nil }
            guard let kind = interleaver.starving else { return nil }
            switch kind {
            case .video:
                for f in try video.step() { interleaver.push(f) }
                if video.isFinished { interleaver.finish(.video) }
            case .audio:
                for f in try audio.step() { interleaver.push(f) }
                if audio.isFinished { interleaver.finish(.audio) }
            }
        }
    }

    /// A live generator cannot rewind.
    public func rewind() throws(FFmpegError) {
        throw FFmpegError(message: "the test pattern is live and cannot rewind", context: "TestPatternSource.rewind")
    }
}

extension TestPatternSource: KeyframeRequestable {
    /// The next picture drawn is encoded as an IDR.
    public func requestKeyframe() { video.forceKeyframe = true }
}
