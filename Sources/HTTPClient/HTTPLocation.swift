/// An absolute `http(s)://host[:port]/path?query` URL (RFC 3986 §3, RFC 9110 §4.2) read into what a client connects
/// to and sends, and reference resolution against it (RFC 3986 §5.2): the one URL parser of the gateway's clients.
public struct HTTPLocation: Sendable, Hashable, CustomStringConvertible {
    /// `https`: TLS to the host (RFC 9110 §4.2.2).
    public var isSecure: Bool
    /// Host name or address, without IPv6 brackets.
    public var host: String
    /// TCP port (80, or 443 for https, when the URL names none).
    public var port: Int
    /// Path and query, always starting with "/" (the request-target, RFC 9112 §3.2.1).
    public var target: String

    /// Connects to `host`:`port` and sends `target`.
    public init(host: String, port: Int, target: String, isSecure: Bool = false) {
        self.isSecure = isSecure
        self.host = host
        self.port = port
        self.target = target
    }

    /// Parses an absolute http or https URL (scheme in any case); nil for anything else: another scheme, user info,
    /// an empty host, a port that is not 1…65535, an unclosed `[`.
    public init?(_ string: String) {
        let lower = string.lowercased()
        let secure = lower.hasPrefix("https://")
        guard secure || lower.hasPrefix("http://") else { return nil }
        let rest = string.dropFirst(secure ? "https://".count : "http://".count)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard let (host, port) = Self.splitAuthority(rest[..<authorityEnd], defaultPort: secure ? 443 : 80) else {
            return nil
        }
        var target = String(rest[authorityEnd...].prefix { $0 != "#" })
        if !target.hasPrefix("/") { target = "/" + target }
        self.init(host: host, port: port, target: target, isSecure: secure)
    }

    /// `host[:port]` or `[v6][:port]`; nil when the port is not a number in range or the host is empty.
    private static func splitAuthority(_ authority: Substring, defaultPort: Int) -> (String, Int)? {
        var host = authority
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty, !host.contains("@") else { return nil }
        guard let portText else { return (String(host), defaultPort) }
        guard let port = Int(portText), (1...65_535).contains(port) else { return nil }
        return (String(host), port)
    }

    /// The path without the query.
    public var path: String { String(target.prefix { $0 != "?" }) }

    /// The query string without "?", or nil.
    public var query: String? { target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) } }

    /// `host:port` as the `Host` header field carries it (IPv6 in brackets, RFC 9110 §7.2).
    public var authority: String { "\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// `reference` resolved against this URL (RFC 3986 §5.2, enough for playlist URIs and `Location`: absolute,
    /// "/x", "?q", "x", "../x"); nil when an absolute reference does not parse.
    public func resolving(_ reference: String) -> HTTPLocation? {
        let lower = reference.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return HTTPLocation(reference) }
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
        let (refPath, refQuery) =
            reference.firstIndex(of: "?").map { (String(reference[..<$0]), String(reference[$0...])) } ?? (
                reference, ""
            )
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
    public func addingQuery(_ items: [(String, String)]) -> HTTPLocation {
        guard !items.isEmpty else { return self }
        var copy = self
        let joined = items.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        copy.target += (query == nil ? "?" : "&") + joined
        return copy
    }

    /// `scheme://host:port` without the target (the origin of RFC 6454 §4, serialized).
    public var origin: String { "\(isSecure ? "https" : "http")://\(authority)" }

    public var description: String { origin + target }
}
