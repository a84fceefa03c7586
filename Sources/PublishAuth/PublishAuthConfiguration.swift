/// Who may publish (`auth.publish.*`): a key list, HMAC-signed expiring keys, a webhook, and the anonymous rule.
///
/// A publish is allowed when any configured method allows it. The publisher's full stream name counts, so a
/// secret can ride in its query (`mystream?s3cret`) while viewers only ever see `mystream`.
public struct PublishAuthConfiguration: Sendable, Equatable {
    /// Who may publish without credentials.
    public enum Anonymous: String, Sendable, Equatable, CaseIterable {
        /// Nobody: a credential is required.
        case none
        /// Peers on 127.0.0.0/8 or ::1 with any key (the default when no method is configured).
        case loopback
        /// Anyone with any key.
        case any
    }

    /// Accepted publish names (`auth.publish.keys`): `name` or `name?secret`, compared in constant time.
    public var keys: [String] = []
    /// Secret for signed keys `name?exp=UNIX&sig=HEX` (`auth.publish.hmac_secret`), sig = HMAC-SHA256("name:exp").
    public var hmacSecret: String?
    /// POSTed `{"key","name","peer","protocol"}` as JSON for each publish (`auth.publish.webhook_url`); 2xx allows.
    public var webhookURL: String?
    /// The webhook must answer within this (`auth.publish.webhook_timeout_ms`); no answer denies.
    public var webhookTimeout: Duration = .seconds(2)
    /// Anonymous rule (`auth.publish.anonymous`); nil means loopback when no method is configured, none otherwise.
    public var anonymous: Anonymous?

    /// Creates the default: any key from loopback, nothing else configured.
    public init() {}

    /// True when a key list, a secret or a webhook is configured.
    public var hasCredentialMethod: Bool { !keys.isEmpty || hmacSecret != nil || webhookURL != nil }

    /// The anonymous rule in force.
    public var effectiveAnonymous: Anonymous { anonymous ?? (hasCredentialMethod ? .none : .loopback) }

    /// The credential methods configured, in words for the start-up log line (`none` when there is none).
    public var methodsSummary: String {
        var methods: [String] = []
        if !keys.isEmpty { methods.append("\(keys.count) configured key(s)") }
        if hmacSecret != nil { methods.append("HMAC-signed keys") }
        if let webhookURL { methods.append("webhook \(webhookURL)") }
        return methods.isEmpty ? "none" : methods.joined(separator: ", ")
    }

    /// Who may publish without credentials, in words for the same log line, so an open ingest never goes unnoticed.
    public var anonymousSummary: String {
        switch effectiveAnonymous {
        case .none: "no anonymous publishing"
        case .loopback: "ANY stream key accepted from loopback peers (127.0.0.0/8, ::1)"
        case .any: "ANY stream key accepted from ANY peer"
        }
    }

    /// Both in one line (the SRT listener's `auth` metadata): the methods, if any, then the anonymous rule.
    public var summary: String {
        hasCredentialMethod ? "\(methodsSummary); \(anonymousSummary)" : anonymousSummary
    }
}
