import NIOCore

/// A transport-neutral answer the HTTP edge turns into a response.
public struct HLSResponse: Sendable {
    /// HTTP status code.
    public var status: Int
    /// Content-Type, when there is a body.
    public var contentType: String?
    /// Cache-Control max-age in seconds (per llhls-checklist "Recommended Cache-Control"); 0 means not cacheable.
    public var maxAge: Int
    /// The URI names these bytes forever (parts, segments, init sections): `Cache-Control: immutable`.
    public var immutable: Bool
    /// Only shared caches (edges) may keep it `maxAge` seconds; a browser must ask again (`max-age=0, s-maxage`).
    public var sharedCachesOnly = false
    /// The body; parts and rendered playlists share one storage across every viewer (no copy per response).
    public var payload: ByteBuffer
    /// When the part answered was listed (for a segment, its last part): the deliver hop and the published header
    /// start here, with no second look into the stream.
    public var published: ContinuousClock.Instant?

    /// Creates a response whose body is shared, not copied.
    public init(status: Int, contentType: String?, maxAge: Int, immutable: Bool = false, payload: ByteBuffer) {
        self.status = status
        self.contentType = contentType
        self.maxAge = maxAge
        self.immutable = immutable
        self.payload = payload
    }

    /// Creates a response from bytes (copied once into a buffer).
    public init(status: Int, contentType: String?, maxAge: Int, body: [UInt8]) {
        self.init(status: status, contentType: contentType, maxAge: maxAge, payload: ByteBuffer(bytes: body))
    }

    /// The body as bytes (a copy: for tests and logs, not the serving path).
    public var body: [UInt8] { Array(payload.readableBytesView) }

    /// A short text error.
    public static func error(_ status: Int, _ message: String, maxAge: Int) -> HLSResponse {
        HLSResponse(
            status: status,
            contentType: "text/plain; charset=utf-8",
            maxAge: maxAge,
            body: Array((message + "\n").utf8)
        )
    }

    /// The playlist MIME type (RFC 8216bis §4).
    public static let playlistType = "application/vnd.apple.mpegurl"
}
