import MediaCore
import NIOHTTP1

/// One complete HTTP response and when its bytes arrived, on both the monotonic and the wall clock.
public struct HTTPFetchResult: Sendable {
    /// The status code.
    public var status: Int
    /// The response header fields.
    public var headers: HTTPHeaders
    /// The body (empty when the request asked to discard it).
    public var body: [UInt8]
    /// Body length in bytes, counted even when discarded.
    public var bodyCount: Int
    /// When the request was written.
    public var sent: ContinuousClock.Instant
    /// When the first bytes of the response were read.
    public var firstByte: ContinuousClock.Instant
    /// `firstByte` on the wall clock, to compare with capture times.
    public var firstByteWall: WallTime
    /// When the last byte of the response was read.
    public var completed: ContinuousClock.Instant
    /// `completed` on the wall clock.
    public var completedWall: WallTime

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? { headers.first(name: name) }
}
