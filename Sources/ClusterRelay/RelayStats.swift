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
    /// Part fetches (200) of a path fetched before: each part should cross to this node once. (Init sections and
    /// segments may be fetched again once their kept copy expired, as the owner's `Cache-Control` says.)
    public var repeatedPartFetches = 0

    /// Nothing yet.
    public init() {}
}
