import HTTPClient

/// RFC 9725 §4.1 and RFC 3986 §3: the WHIP endpoint URL a publisher POSTs its offer to, read into connect details.
public struct WHIPEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// Where the offer goes.
    public var location: HTTPLocation
    /// The stream key (last path segment after `/whip/`).
    public var streamKey: String

    /// Host name or address, without brackets.
    public var host: String { location.host }
    /// TCP port (80 when the URL names none).
    public var port: Int { location.port }
    /// Path and query, starting with `/`.
    public var target: String { location.target }

    /// Parses `http://HOST[:PORT]/whip/KEY`; https is refused with a reason (no TLS client in this build).
    public init(_ url: String) throws(WHIPPublishError) {
        let lower = url.lowercased()
        if lower.hasPrefix("https://") {
            throw .badEndpoint("\(url) (https is not supported by `sluice publish`; use http:// on a trusted network)")
        }
        guard let location = HTTPLocation(url) else { throw .badEndpoint(url) }
        let segments = location.path.split(separator: "/", omittingEmptySubsequences: false)
        guard let whip = segments.lastIndex(of: "whip"), whip + 1 == segments.count - 1, !segments[whip + 1].isEmpty
        else {
            throw .badEndpoint(url)
        }
        self.location = location
        self.streamKey = String(segments[whip + 1])
    }

    /// The URL again (`http://host:port/target`).
    public var description: String { location.description }

    /// RFC 3986 §5.2 reference resolution for the `Location` header: absolute URL, absolute path, or relative path.
    public func resolve(_ reference: String) -> String {
        let lower = reference.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return reference }
        return location.resolving(reference)?.description ?? reference
    }
}
