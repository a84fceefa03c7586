import Foundation

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
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            self = .malformed
            return
        }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        self = token.isEmpty ? .malformed : .token(token)
    }
}
