import FFmpegBridge

/// What to publish, named without libav or FFmpegBridge types so the CLI needs only this module.
public enum PublishInput: Sendable, Equatable, CustomStringConvertible {
    /// The in-process test pattern and tone.
    case testPattern(width: Int, height: Int, fps: Int, gopFrames: Int, bFrames: Int)
    /// An FLV or MP4 file with H.264 and/or AAC.
    case file(path: String)

    public var description: String {
        switch self {
        case .testPattern(let w, let h, let fps, let gop, let b):
            "test pattern \(w)x\(h) @ \(fps) fps (H.264, GOP \(gop) frames, \(b) B-frames) + 440 Hz AAC tone"
        case .file(let path): "file \(path)"
        }
    }

    /// Opens the source; `duration` bounds the test pattern's encoder so it stops cleanly.
    public func open(duration: Duration?) throws(FFmpegError) -> any MediaSource {
        switch self {
        case .testPattern(let w, let h, let fps, let gop, let b):
            return try TestPatternSource(
                configuration: .init(width: w, height: h, fps: fps, gop: gop, bFrames: b, duration: duration)
            )
        case .file(let path):
            return try MediaFileSource(path: path)
        }
    }
}
