import CodecFormats
import FFmpegBridge
import MediaCore

/// Why publishing over RTMP failed; each case says which step and for which URL.
public enum RTMPPublishError: Error, Sendable, Equatable, CustomStringConvertible {
    /// librtmp could not parse the URL.
    case invalidURL(String)
    /// TCP connect, handshake or the `connect` command failed.
    case connectFailed(url: String)
    /// The server did not accept `publish` (or `createStream`) for the stream.
    case publishRefused(url: String)
    /// `RTMP_Write` failed for a tag of `kind` at `timestamp` ms (the connection dropped).
    case writeFailed(kind: String, timestamp: UInt32)
    /// The publisher was used after `close()`.
    case closed
    /// The media source failed.
    case source(FFmpegError)
    /// A video frame at `dts` is not 4-byte AVCC, so the capture-time SEI cannot be inserted.
    case malformedVideo(dts: MediaTime, CodecFormatError)

    public var description: String {
        switch self {
        case .invalidURL(let url): "invalid RTMP URL \(url)"
        case .connectFailed(let url): "could not connect to \(url)"
        case .publishRefused(let url): "server refused to publish \(url)"
        case .writeFailed(let kind, let ts): "writing the \(kind) tag at \(ts) ms failed (connection lost)"
        case .closed: "the RTMP publisher is closed"
        case .source(let e): "source failed: \(e)"
        case .malformedVideo(let dts, let e): "video frame at dts \(dts) is not AVCC: \(e)"
        }
    }
}
