/// Why an HTTP exchange gave no response; each case names the URL.
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// TCP (or TLS) connect failed or timed out.
    case connectFailed(url: String, reason: String)
    /// No complete response within the exchange's limit.
    case timedOut(url: String, after: Duration)
    /// The server closed the connection before the response ended.
    case connectionClosed(url: String)
    /// The connection failed while the request was in flight (`reason` is the channel error).
    case failed(url: String, reason: String)
    /// A request was made on a connection while another one was in flight (HTTP/1.1 answers in order, one at a
    /// time here).
    case busy(url: String)

    public var description: String {
        switch self {
        case .connectFailed(let url, let reason): "connect to \(url) failed: \(reason)"
        case .timedOut(let url, let after): "no response from \(url) within \(after)"
        case .connectionClosed(let url): "connection closed before the response from \(url) ended"
        case .failed(let url, let reason): "HTTP request to \(url) failed: \(reason)"
        case .busy(let url): "request to \(url) while another was in flight on the same connection"
        }
    }
}
