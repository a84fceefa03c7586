/// RFC 9725 §4.1 and RFC 3986 §3: the WHIP endpoint URL a publisher POSTs its offer to, read into connect details.
public struct WHIPEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// Host name or address, without brackets.
    public var host: String
    /// TCP port (80 when the URL names none).
    public var port: Int
    /// Path and query, starting with `/`.
    public var target: String
    /// The stream key (last path segment after `/whip/`).
    public var streamKey: String

    /// Parses `http://HOST[:PORT]/whip/KEY`; https is refused with a reason (no TLS client in this build).
    public init(_ url: String) throws(WHIPPublishError) {
        let lower = url.lowercased()
        if lower.hasPrefix("https://") {
            throw .badEndpoint("\(url) (https is not supported by `sluice publish`; use http:// on a trusted network)")
        }
        guard lower.hasPrefix("http://") else { throw .badEndpoint(url) }
        let rest = url.dropFirst("http://".count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        let target = rest[slash...].isEmpty ? "/" : String(rest[slash...])
        guard let (host, port) = Self.splitAuthority(authority) else { throw .badEndpoint(url) }
        let path = target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? target
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard let whip = segments.lastIndex(of: "whip"), whip + 1 == segments.count - 1, !segments[whip + 1].isEmpty else {
            throw .badEndpoint(url)
        }
        self.host = host
        self.port = port
        self.target = target
        self.streamKey = String(segments[whip + 1])
    }

    /// `host[:port]` or `[v6][:port]`; nil when the port is not a number in range or the host is empty.
    private static func splitAuthority(_ authority: Substring) -> (String, Int)? {
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
        guard let portText else { return (String(host), 80) }
        guard let port = Int(portText), (1...65_535).contains(port) else { return nil }
        return (String(host), port)
    }

    /// The URL again (`http://host:port/target`).
    public var description: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "http://\(shown):\(port)\(target)"
    }

    /// RFC 3986 §5.2 reference resolution for the `Location` header: absolute URL, absolute path, or relative path.
    public func resolve(_ reference: String) -> String {
        let lower = reference.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return reference }
        let shown = host.contains(":") ? "[\(host)]" : host
        let base = "http://\(shown):\(port)"
        if reference.hasPrefix("/") { return base + reference }
        let path = target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? target
        let directory = path[...(path.lastIndex(of: "/") ?? path.startIndex)]
        return base + directory + reference
    }
}
