import FFmpegBridge
import MPEGTS

/// Why an SRT publish failed; each case names what went wrong.
public enum SRTPublishError: Error, Sendable, CustomStringConvertible {
    /// Not `srt://HOST:PORT?streamid=...`.
    case invalidURL(String)
    /// A libsrt call failed: which, libsrt's code and message (a refused caller carries the reject reason).
    case libsrt(call: String, code: Int32, message: String)
    /// The source could not be read.
    case source(FFmpegError)
    /// A frame could not be muxed.
    case mux(MPEGTSError)

    public var description: String {
        switch self {
        case .invalidURL(let url): "not an srt://HOST:PORT?streamid=... URL: \(url)"
        case .libsrt(let call, let code, let message): "\(call) failed: \(message) (\(code))"
        case .source(let e): "source: \(e)"
        case .mux(let e): "MPEG-TS mux: \(e)"
        }
    }
}
