/// What the relay did since start (`/api/cluster` shows it): requests answered, fetches from owners, and how many
/// of those fetched a media object (part, segment, init section) this node had fetched before.
public struct RelayStats: Sendable, Equatable, Codable {
    /// Requests for streams held elsewhere that found an owner.
    public var requests = 0
    /// Of those, answered from a fresh copy kept here.
    public var cacheHits = 0
    /// Of those, answered by a fetch another request had started.
    public var joined = 0
    /// Fetches sent to owners.
    public var fetches = 0
    /// Fetches that failed (owner unreachable, timed out).
    public var failures = 0
    /// Media fetches (200) of a path fetched before: each should be fetched once per node.
    public var repeatedMediaFetches = 0

    /// Nothing yet.
    public init() {}
}
