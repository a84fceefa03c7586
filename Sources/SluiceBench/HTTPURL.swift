import HTTPClient

/// An `http://host[:port]/path?query` URL for the bench's viewers: `HTTPLocation` (the one URL parser) with the
/// bench's error.
public struct HTTPURL: Sendable, Hashable, CustomStringConvertible {
    /// The parsed URL.
    public var location: HTTPLocation

    /// Parses an absolute http URL; throws `invalidURL` for anything else (https is not spoken here).
    public init(_ string: String) throws(BenchError) {
        guard let location = HTTPLocation(string), !location.isSecure else { throw .invalidURL(string) }
        self.location = location
    }

    init(_ location: HTTPLocation) { self.location = location }

    /// Host name or address.
    public var host: String { location.host }
    /// TCP port (80 when absent).
    public var port: Int { location.port }
    /// Path and query, always starting with "/" (the request-target, RFC 9112 §3.2.1).
    public var target: String { location.target }
    /// The path without the query.
    public var path: String { location.path }
    /// The query string without "?", or nil.
    public var query: String? { location.query }

    /// `reference` resolved against this URL (RFC 3986 §5.2).
    public func resolving(_ reference: String) throws(BenchError) -> HTTPURL {
        guard let resolved = location.resolving(reference), !resolved.isSecure else { throw .invalidURL(reference) }
        return HTTPURL(resolved)
    }

    /// This URL with `items` appended to its query (existing items kept).
    public func addingQuery(_ items: [(String, String)]) -> HTTPURL { HTTPURL(location.addingQuery(items)) }

    public var description: String { location.description }
}
