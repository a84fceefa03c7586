import HTTPClient

/// The bench's URLs are `HTTPLocation`s (the one URL parser); these throw the bench's error where it has none.
extension HTTPLocation {
    /// Parses an absolute http(s) URL; throws `invalidURL` for anything else.
    public init(parsing string: String) throws(BenchError) {
        guard let location = HTTPLocation(string) else { throw .invalidURL(string) }
        self = location
    }

    /// `reference` resolved against this URL (RFC 3986 §5.2); throws `invalidURL` when it does not parse.
    func resolved(_ reference: String) throws(BenchError) -> HTTPLocation {
        guard let resolved = resolving(reference) else { throw .invalidURL(reference) }
        return resolved
    }
}
