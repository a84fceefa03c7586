/// What the relay did since start (`/api/cluster` shows it): requests answered, fetches from owners, and how many
/// of those fetched a part this node had fetched before.
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
    /// Parts fetched (200).
    public var partFetches = 0
    /// Part fetches (200) of a path fetched before while its kept copy was still fresh: each part should cross to this
    /// node once. (Once the owner's `Cache-Control` lifetime has run out, a part may be fetched again.)
    public var repeatedPartFetches = 0

    /// Nothing yet.
    public init() {}
}
