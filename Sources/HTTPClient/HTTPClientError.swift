/// Why an HTTP exchange gave no response; each case names the URL.
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// TCP connect failed.
    case connectFailed(url: String, reason: String)
    /// No complete response within the exchange's limit.
    case timedOut(url: String, after: Duration)
    /// The connection failed or closed before the response was complete.
    case failed(url: String, reason: String)

    public var description: String {
        switch self {
        case .connectFailed(let url, let reason): "connect to \(url) failed: \(reason)"
        case .timedOut(let url, let after): "no response from \(url) within \(after)"
        case .failed(let url, let reason): "HTTP request to \(url) failed: \(reason)"
        }
    }
}
