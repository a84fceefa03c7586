/// Why a recording could not be written, listed or served; each case names the path or id concerned.
public enum RecorderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stream key, recording id or file name that is not a plain name (path traversal, empty, odd characters).
    case invalidName(String)
    /// No such recording (or file in it).
    case notFound(String)
    /// The file system refused (`operation` on `path`, errno text).
    case io(operation: String, path: String, reason: String)

    public var description: String {
        switch self {
        case .invalidName(let n): "not a valid name: \(n)"
        case .notFound(let what): "no such recording or file: \(what)"
        case .io(let op, let path, let reason): "\(op) \(path) failed: \(reason)"
        }
    }
}
