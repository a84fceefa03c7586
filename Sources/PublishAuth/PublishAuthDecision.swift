/// The outcome of authorization; `by`/`reason` end up in the session's log line.
public enum PublishAuthDecision: Sendable, Equatable {
    /// Allowed by the named method.
    case allowed(by: String)
    /// Refused, with why.
    case denied(reason: String)
}
