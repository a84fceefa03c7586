import HTTPClient

/// RFC 9110 §15: what the WHIP endpoint answered (status, headers by lower-cased name, body as text).
public struct WHIPHTTPResponse: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// Header values by lower-cased name (the first of repeated headers).
    public var headers: [String: String]
    /// The body as UTF-8 text.
    public var body: String

    /// A response.
    public init(status: Int, headers: [String: String] = [:], body: String = "") {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The client's answer, its body read as SDP text.
    init(_ response: HTTPClientResponse) {
        self.init(status: response.status, headers: response.headers, body: response.text)
    }
}
