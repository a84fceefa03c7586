import FFmpegBridge
import Logging
import MediaCore
import StreamHub
import Synchronization

/// Makes the hub's slate with libx264 and FFmpeg's AAC encoder: once per stream shape (picture size, frame rate,
/// sample rate, channels), kept for every later drop. H.264, HEVC and AV1 sources with AAC (or no) audio get a slate
/// in their codec (libx265, SVT-AV1 for the latter two); others none.
public final class SlateFactory: SlateMaker {
    /// What a slate is made for: the tracks' shapes, not their encoders' exact parameters.
    private struct Shape: Hashable {
        var codec: Codec
        var width: Int
        var height: Int
        var frameRate: Double
        var sampleRate: Int?
        var channels: Int?
    }

    private let gop: Duration
    private let logger: Logger
    private let made = Mutex<[Shape: SlateClip?]>([:])
    /// Serialises making, so a drop and the warm-up never encode the same slate twice.
    private let making = Mutex<Void>(())

    private let image: SlateImage?

    /// A factory whose slates repeat a keyframe every `gop` (the segment target, so segments cut on it) and show
    /// `image` (`ingest.slate_image`) or, without one, "BACK SHORTLY".
    public init(gop: Duration = .seconds(1), image: SlateImage? = nil, logger: Logger = Logger(label: "sluice.slate")) {
        self.gop = gop
        self.image = image
        self.logger = logger
    }

    public func clip(matching description: StreamDescription) -> SlateClip? {
        guard let video = description.video, [.h264, .hevc, .av1].contains(video.codec) else { return nil }
        if let audio = description.audio, audio.codec != .aac { return nil }
        let shape = Shape(
            codec: video.codec,
            width: video.width,
            height: video.height,
            frameRate: video.frameRate ?? 30,
            sampleRate: description.audio?.sampleRate,
            channels: description.audio?.channels
        )
        return making.withLock { _ in
            if let known = made.withLock({ $0[shape] }) { return known }
            let clip = make(shape)
            made.withLock { $0[shape] = clip }
            return clip
        }
    }

    private func make(_ shape: Shape) -> SlateClip? {
        let started = ContinuousClock.now
        do {
            let frames = max(1, Int((shape.frameRate * gop.secondsDouble).rounded()))
            let (video, pictures) = try SlateEncoding.video(
                codec: shape.codec,
                width: shape.width,
                height: shape.height,
                frameRate: shape.frameRate,
                frames: frames,
                image: image
            )
            var description = StreamDescription(video: video)
            var audio: MediaFrame?
            var audioLength: MediaTime?
            if let rate = shape.sampleRate, let channels = shape.channels {
                let (parameters, silence) = try SlateEncoding.silence(sampleRate: rate, channels: channels)
                description.audio = parameters
                audio = silence
                audioLength = MediaTime(value: Int64(parameters.samplesPerFrame), timescale: Int32(rate))
            }
            logger.info(
                "slate made",
                metadata: [
                    "codec": "\(shape.codec)", "size": "\(shape.width)x\(shape.height)", "frames": "\(pictures.count)",
                    "bytes": "\(pictures.reduce(0) { $0 + $1.data.count })",
                    "ms": "\((ContinuousClock.now - started).milliseconds)",
                ]
            )
            return SlateClip(
                description: description,
                video: pictures,
                videoFrameDuration: MediaTime(value: Int64((90_000 / shape.frameRate).rounded()), timescale: 90_000),
                audio: audio,
                audioFrameDuration: audioLength
            )
        } catch {
            logger.error("slate could not be made", metadata: ["reason": "\(error)"])
            return nil
        }
    }
}
