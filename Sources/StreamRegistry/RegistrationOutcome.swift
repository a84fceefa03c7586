/// What registering a key (or refreshing it) found in Redis.
public enum RegistrationOutcome: Sendable, Equatable {
    /// This node holds the key, with a fresh TTL.
    case registered
    /// Another node holds the key (its node URL); this node did not take it.
    case heldBy(String)
}

/// What refreshing a held key found in Redis.
public enum RefreshOutcome: Sendable, Equatable {
    /// Still ours, TTL renewed.
    case refreshed
    /// Gone: it expired (a refresh came too late, or Redis restarted empty).
    case expired
    /// Another node registered it after ours expired.
    case heldBy(String)
}
