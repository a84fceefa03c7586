/// A transport-neutral answer the HTTP edge turns into a response.
public struct HLSResponse: Sendable {
    /// HTTP status code.
    public var status: Int
    /// Content-Type, when there is a body.
    public var contentType: String?
    /// Cache-Control max-age in seconds (per llhls-checklist "Recommended Cache-Control").
    public var maxAge: Int
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, contentType: String?, maxAge: Int, body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.maxAge = maxAge
        self.body = body
    }

    /// A short text error.
    public static func error(_ status: Int, _ message: String, maxAge: Int) -> HLSResponse {
        HLSResponse(status: status, contentType: "text/plain; charset=utf-8", maxAge: maxAge, body: Array((message + "\n").utf8))
    }

    /// The playlist MIME type (RFC 8216bis §4).
    public static let playlistType = "application/vnd.apple.mpegurl"
}
