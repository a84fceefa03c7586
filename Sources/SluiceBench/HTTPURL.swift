/// An `http://host[:port]/path?query` URL (RFC 9110 §4.2.1), and reference resolution for playlist URIs.
public struct HTTPURL: Sendable, Hashable, CustomStringConvertible {
    /// Host name or address.
    public var host: String
    /// TCP port (80 when absent).
    public var port: Int
    /// Path and query, always starting with "/" (the request-target, RFC 9112 §3.2.1).
    public var target: String

    /// Parses an absolute http URL; throws `invalidURL` for anything else (https is not spoken here).
    public init(_ string: String) throws(BenchError) {
        guard string.hasPrefix("http://") else { throw .invalidURL(string) }
        let rest = string.dropFirst("http://".count)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var target = String(rest[authorityEnd...])
        if !target.hasPrefix("/") { target = "/" + target }
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            guard let port = Int(authority[authority.index(after: colon)...]), (1...65_535).contains(port) else {
                throw .invalidURL(string)
            }
            host = String(authority[..<colon])
            self.port = port
        } else {
            host = String(authority)
            port = 80
        }
        guard !host.isEmpty else { throw .invalidURL(string) }
        self.target = target
    }

    /// The path without the query.
    public var path: String { String(target.prefix { $0 != "?" }) }

    /// The query string without "?", or nil.
    public var query: String? { target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) } }

    /// `reference` resolved against this URL (RFC 3986 §5.2, enough for playlist URIs: absolute, "/x", "x", "../x").
    public func resolving(_ reference: String) throws(BenchError) -> HTTPURL {
        if reference.hasPrefix("http://") { return try HTTPURL(reference) }
        var copy = self
        if reference.hasPrefix("/") {
            copy.target = reference
            return copy
        }
        if reference.hasPrefix("?") {
            copy.target = path + reference
            return copy
        }
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        segments.removeLast()  // The last segment of the base is replaced.
        let (refPath, refQuery) = reference.firstIndex(of: "?").map {
            (String(reference[..<$0]), String(reference[$0...]))
        } ?? (reference, "")
        for part in refPath.split(separator: "/", omittingEmptySubsequences: false) {
            switch part {
            case ".": continue
            case "..": if segments.count > 1 { segments.removeLast() }
            default: segments.append(String(part))
            }
        }
        copy.target = segments.joined(separator: "/") + refQuery
        if !copy.target.hasPrefix("/") { copy.target = "/" + copy.target }
        return copy
    }

    /// This URL with `items` appended to its query (existing items kept).
    public func addingQuery(_ items: [(String, String)]) -> HTTPURL {
        guard !items.isEmpty else { return self }
        var copy = self
        let joined = items.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        copy.target += (query == nil ? "?" : "&") + joined
        return copy
    }

    public var description: String { "http://\(host):\(port)\(target)" }
}
