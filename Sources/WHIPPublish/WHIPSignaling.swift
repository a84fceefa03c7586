import HTTPClient

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
        try await send("POST", target: endpoint.target, endpoint: endpoint, body: offer)
    }

    public func delete(_ url: String, endpoint: WHIPEndpoint) async throws(WHIPPublishError) -> WHIPHTTPResponse {
        try await send("DELETE", target: Self.target(of: url) ?? endpoint.target, endpoint: endpoint, body: nil)
    }

    private func send(
        _ method: String,
        target: String,
        endpoint: WHIPEndpoint,
        body: String?
    )
        async throws(WHIPPublishError) -> WHIPHTTPResponse
    {
        var headers: [(String, String)] = []
        if body != nil { headers.append(("Content-Type", "application/sdp")) }
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        let url = HTTPLocation(host: endpoint.host, port: endpoint.port, target: target)
        do {
            let client = HTTPClient(timeout: timeout, userAgent: "sluice-whip")
            return WHIPHTTPResponse(
                try await client.request(method, url, headers: headers, body: body.map { Array($0.utf8) })
            )
        } catch {
            switch error {
            case .timedOut(_, let after): throw .http(url: url.description, reason: "no response within \(after)")
            case .connectFailed(_, let reason): throw .http(url: url.description, reason: "connect: \(reason)")
            case .failed(_, let reason): throw .http(url: url.description, reason: reason)
            case .connectionClosed, .busy: throw .http(url: url.description, reason: error.description)
            }
        }
    }

    /// The request-target of an absolute `http://host:port/path` URL or an absolute path (the DELETE goes to the
    /// endpoint's host and port).
    static func target(of url: String) -> String? { url.hasPrefix("/") ? url : HTTPLocation(url)?.target }
}
