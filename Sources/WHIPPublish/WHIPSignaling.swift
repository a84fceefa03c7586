import NIOHTTP1
import NIOPosix

/// RFC 9725 §4.2 and §4.4: how the publisher exchanges its offer and ends the session (HTTP POST and DELETE).
///
/// The HTTP implementation is the product; an in-process one lets a test drive a real ingest service directly.
public protocol WHIPSignaling: Sendable {
    /// POSTs `offer` (`application/sdp`) to `endpoint` and returns the whole response.
    func post(offer: String, to endpoint: WHIPEndpoint) async throws(WHIPPublishError) -> WHIPHTTPResponse
    /// DELETEs the session resource `url` (absolute, from `Location`).
    func delete(_ url: String, endpoint: WHIPEndpoint) async throws(WHIPPublishError) -> WHIPHTTPResponse
}

/// WHIP over HTTP/1.1 with an optional bearer token (RFC 9725 §4.5), one connection per request.
public struct WHIPHTTPSignaling: WHIPSignaling {
    /// `Authorization: Bearer` token.
    public var bearer: String?
    /// Limit for connect plus response.
    public var timeout: Duration

    public init(bearer: String? = nil, timeout: Duration = .seconds(10)) {
        self.bearer = bearer
        self.timeout = timeout
    }

    public func post(offer: String, to endpoint: WHIPEndpoint) async throws(WHIPPublishError) -> WHIPHTTPResponse {
        try await send(.POST, target: endpoint.target, endpoint: endpoint, body: offer)
    }

    public func delete(_ url: String, endpoint: WHIPEndpoint) async throws(WHIPPublishError) -> WHIPHTTPResponse {
        try await send(.DELETE, target: Self.target(of: url) ?? endpoint.target, endpoint: endpoint, body: nil)
    }

    private func send(_ method: HTTPMethod, target: String, endpoint: WHIPEndpoint, body: String?)
        async throws(WHIPPublishError) -> WHIPHTTPResponse
    {
        var headers: [(String, String)] = []
        if body != nil { headers.append(("Content-Type", "application/sdp")) }
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        let client = WHIPHTTPClient(group: MultiThreadedEventLoopGroup.singleton, timeout: timeout)
        return try await client.request(method, host: endpoint.host, port: endpoint.port, target: target, headers: headers, body: body)
    }

    /// The path of an absolute `http://host:port/path` URL (the DELETE goes to the endpoint's host and port).
    static func target(of url: String) -> String? {
        let parts = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        // ["http:", "", "host:port", "path…"]
        guard parts.count >= 3, parts[0].hasSuffix(":"), parts[1].isEmpty else { return url.hasPrefix("/") ? url : nil }
        return parts.count == 4 ? "/" + parts[3] : "/"
    }
}
