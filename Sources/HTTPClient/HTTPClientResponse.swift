/// RFC 9110 §15: what a server answered (status, header fields by lowercased name, the body).
public struct HTTPClientResponse: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// Header values by lowercased name (the first of repeated fields).
    public var headers: [String: String]
    /// The body bytes.
    public var body: [UInt8]

    /// A response.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }
}
