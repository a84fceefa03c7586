import MPEGTS
import SRTWire
import StreamHub

/// Why an SRT listener could not start or a session was closed; each case names what went wrong.
public enum SRTIngestError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A libsrt call failed: which call, libsrt's error code and message.
    case libsrt(call: String, code: Int32, message: String)
    /// The caller's stream id cannot publish.
    case streamID(SRTWireError)
    /// The transport stream could not be read.
    case transportStream(MPEGTSError)
    /// Publish auth (key list, signed key, webhook) refused.
    case publishRefused(reason: String)
    /// The hub refused the key (already live, too many streams).
    case hub(StreamHubError)
    /// The connection ended: libsrt's reason (peer closed, timed out, shutdown).
    case connectionEnded(String)

    public var description: String {
        switch self {
        case .libsrt(let call, let code, let message): "\(call) failed: \(message) (\(code))"
        case .streamID(let e): "\(e)"
        case .transportStream(let e): "bad MPEG-TS: \(e)"
        case .publishRefused(let reason): "publish refused: \(reason)"
        case .hub(let e): "\(e)"
        case .connectionEnded(let reason): reason
        }
    }
}
