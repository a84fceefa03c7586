import MediaCore

/// RFC 9110 §15: what a server answered (status, header fields by lowercased name, the body), and when its bytes
/// moved on the monotonic and the wall clock.
public struct HTTPClientResponse: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// Header values by lowercased name (the first of repeated fields).
    public var headers: [String: String]
    /// The body bytes (empty when the request asked to discard them).
    public var body: [UInt8]
    /// Body length in bytes, counted even when discarded.
    public var bodyCount: Int
    /// When the request was written.
    public var sent: ContinuousClock.Instant
    /// When the response head was read (the read that carried its first bytes).
    public var firstByte: ContinuousClock.Instant
    /// `firstByte` on the wall clock, to compare with capture times.
    public var firstByteWall: WallTime
    /// When the last byte of the response was read.
    public var completed: ContinuousClock.Instant
    /// `completed` on the wall clock.
    public var completedWall: WallTime

    /// A response; the instants default to now (a response built by hand).
    public init(
        status: Int,
        headers: [String: String] = [:],
        body: [UInt8] = [],
        bodyCount: Int? = nil,
        sent: ContinuousClock.Instant = .now,
        firstByte: (ContinuousClock.Instant, WallTime)? = nil,
        completed: (ContinuousClock.Instant, WallTime)? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyCount = bodyCount ?? body.count
        self.sent = sent
        let now = (ContinuousClock.now, WallTime.now())
        (self.firstByte, self.firstByteWall) = firstByte ?? now
        (self.completed, self.completedWall) = completed ?? now
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The first value of header field `name` (case-insensitive).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}
