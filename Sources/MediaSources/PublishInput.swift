import FFmpegBridge
import MediaCore

/// What to publish, named without libav or FFmpegBridge types so the CLI needs only this module.
public enum PublishInput: Sendable, Equatable, CustomStringConvertible {
    /// The in-process test pattern and tone; `codec` is h264, hevc (E-RTMP hvc1) or av1 (E-RTMP av01).
    case testPattern(width: Int, height: Int, fps: Int, gopFrames: Int, bFrames: Int, codec: Codec = .h264)
    /// An FLV or MP4 file with H.264 and/or AAC.
    case file(path: String)

    public var description: String {
        switch self {
        case .testPattern(let w, let h, let fps, let gop, let b, let codec):
            "test pattern \(w)x\(h) @ \(fps) fps (\(Self.videoName(codec)), GOP \(gop) frames, \(b) B-frames) + 440 Hz AAC tone"
        case .file(let path): "file \(path)"
        }
    }

    /// The codec as streamers name it.
    private static func videoName(_ codec: Codec) -> String {
        switch codec {
        case .hevc: "HEVC"
        case .av1: "AV1"
        case .h264, .aac, .opus: "H.264"
        }
    }

    /// Opens the source; `duration` bounds the test pattern's encoder so it stops cleanly.
    public func open(duration: Duration?) throws(FFmpegError) -> any MediaSource {
        switch self {
        case .testPattern(let w, let h, let fps, let gop, let b, let codec):
            return try TestPatternSource(
                configuration: .init(
                    width: w,
                    height: h,
                    fps: fps,
                    gop: gop,
                    bFrames: b,
                    videoCodec: codec,
                    duration: duration
                )
            )
        case .file(let path):
            return try MediaFileSource(path: path)
        }
    }
}
