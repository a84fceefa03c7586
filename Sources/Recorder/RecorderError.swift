/// Why a recording could not be written, listed or served; each case names the path or id concerned.
public enum RecorderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stream key, recording id or file name that is not a plain name (path traversal, empty, odd characters).
    case invalidName(String)
    /// No such recording (or file in it).
    case notFound(String)
    /// Recording control: the stream is not being published.
    case notLive(String)
    /// Recording control: the stream is already being recorded (as `id`).
    case alreadyRecording(key: String, id: String)
    /// Recording control: the stream is not being recorded.
    case notRecording(String)
    /// A time range (`start`, `duration` in seconds) the recording does not cover, or that is not a range.
    case rangeNotSatisfiable(String)
    /// The file system refused (`operation` on `path`, errno text).
    case io(operation: String, path: String, reason: String)

    public var description: String {
        switch self {
        case .invalidName(let n): "not a valid name: \(n)"
        case .notFound(let what): "no such recording or file: \(what)"
        case .notLive(let key): "stream \(key) is not live"
        case .alreadyRecording(let key, let id): "stream \(key) is already being recorded (recording \(id))"
        case .notRecording(let key): "stream \(key) is not being recorded"
        case .rangeNotSatisfiable(let why): "range not satisfiable: \(why)"
        case .io(let op, let path, let reason): "\(op) \(path) failed: \(reason)"
        }
    }
}
