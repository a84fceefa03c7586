import CFFmpeg

/// A failed libav call: the negative return code, libav's text for it, and which call failed.
public struct FFmpegError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The libav return code (negative `AVERROR`), or 0 for failures that are not libav codes.
    public var code: Int32
    /// libav's description of `code` (from `av_strerror`), or our own text.
    public var message: String
    /// The call or step that failed, e.g. `avcodec_open2(libx264)`.
    public var context: String

    /// Wraps a libav return code, looking up its message.
    public init(code: Int32, context: String) {
        self.code = code
        self.context = context
        var buffer = [CChar](repeating: 0, count: 256)
        swift_av_strerror(code, &buffer, buffer.count)
        self.message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A failure with no libav code behind it (unsupported codec, missing encoder).
    public init(message: String, context: String) {
        self.code = 0
        self.message = message
        self.context = context
    }

    public var description: String { "\(context): \(message)" + (code != 0 ? " (\(code))" : "") }

    /// True when `code` is libav's end-of-file.
    public var isEndOfFile: Bool { code == swift_AVERROR_EOF() }
}

/// Throws an `FFmpegError` for a negative libav return code; passes non-negative codes through.
@discardableResult
func check(_ ret: Int32, _ context: @autoclosure () -> String) throws(FFmpegError) -> Int32 {
    if ret < 0 { throw FFmpegError(code: ret, context: context()) }
    return ret
}
