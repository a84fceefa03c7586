import Foundation
import MediaCore

/// RFC 9725 §4.5: what a WHIP request presents for authorization (the key from the URL, an RFC 6750 bearer token).
public struct WHIPAuthRequest: Sendable, Equatable {
    /// The stream key from `/whip/{key}`.
    public var key: StreamKey
    /// The token of `Authorization: Bearer <token>`, nil when the request has none.
    public var token: String?
    /// The HTTP peer's IP address, nil when unknown.
    public var peerIP: String?

    /// Creates a request.
    public init(key: StreamKey, token: String?, peerIP: String?) {
        self.key = key
        self.token = token
        self.peerIP = peerIP
    }
}

/// The answer to a `WHIPAuthRequest`; `by`/`reason` end up in the log line and the 401 body.
public enum WHIPAuthDecision: Sendable, Equatable {
    /// Allowed by the named method.
    case allowed(by: String)
    /// Refused, with why.
    case denied(reason: String)
}

/// Decides WHIP POSTs; the app injects one built on the RTMP publish rules (this target cannot see RTMPIngest).
public typealias WHIPAuthorizer = @Sendable (WHIPAuthRequest) async -> WHIPAuthDecision

/// RFC 6750 §2.1: the credential in an `Authorization` header field.
enum BearerCredential: Equatable {
    /// No `Authorization` field.
    case none
    /// `Bearer <token>`.
    case token(String)
    /// Another scheme, or `Bearer` without a token.
    case malformed

    /// Parses the field; the scheme is case-insensitive (RFC 9110 §11.1), surrounding spaces are dropped.
    init(header: String?) {
        guard let header else {
            self = .none
            return
        }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            self = .malformed
            return
        }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        self = token.isEmpty ? .malformed : .token(token)
    }
}
