import MediaCore

/// Why a WHIP publish (RFC 9725 client role) failed; each case names where.
public enum WHIPPublishError: Error, Equatable, Sendable {
    /// The endpoint URL is not `http://HOST:PORT/whip/KEY`.
    case badEndpoint(String)
}
