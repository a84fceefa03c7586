/// Signed, expiring credentials: `name?exp=UNIX&sig=HEX` publish keys and `EXP-HEX` viewer tokens.
///
/// Both sign `"<stream key>:<expiry>"` with HMAC-SHA256 under a shared secret; a signature is checked in
/// constant time and rejected once the expiry (Unix seconds) has passed.
public enum SignedToken {
    /// Why a signed credential was refused.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// No `exp`/`sig` (or token) in the expected shape.
        case malformed
        /// The expiry is in the past.
        case expired(expiry: Int64, now: Int64)
        /// The signature does not match.
        case badSignature

        public var description: String {
            switch self {
            case .malformed: "malformed signed credential"
            case .expired(let e, let now): "expired at \(e) (now \(now))"
            case .badSignature: "bad signature"
            }
        }
    }

    /// The lowercase hex HMAC-SHA256 of `"<key>:<expiry>"`.
    public static func signature(key: String, expiry: Int64, secret: String) -> String {
        HMACSHA256.hex("\(key):\(expiry)", secret: secret)
    }

    /// Checks `signature` for `key` and `expiry` at `now` (Unix seconds).
    public static func verify(
        key: String,
        expiry: Int64,
        signature: String,
        secret: String,
        now: Int64
    )
        throws(Failure)
    {
        let expected = self.signature(key: key, expiry: expiry, secret: secret)
        guard HMACSHA256.constantTimeEquals(Array(expected.utf8), Array(signature.lowercased().utf8)) else {
            throw .badSignature
        }
        guard expiry >= now else { throw .expired(expiry: expiry, now: now) }
    }

    /// Reads `exp` and `sig` from a query string such as `exp=1700000000&sig=ab12...`.
    public static func parseQuery(_ query: Substring) -> (expiry: Int64, signature: String)? {
        var expiry: Int64?
        var signature: String?
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            if parts[0] == "exp" { expiry = Int64(parts[1]) }
            if parts[0] == "sig" { signature = String(parts[1]) }
        }
        guard let expiry, let signature else { return nil }
        return (expiry, signature)
    }

    /// The viewer token for `key` valid until `expiry`: `<expiry>-<hex signature>`.
    public static func viewerToken(key: String, expiry: Int64, secret: String) -> String {
        "\(expiry)-\(signature(key: key, expiry: expiry, secret: secret))"
    }

    /// Checks a viewer token made by `viewerToken(key:expiry:secret:)`; returns its expiry.
    @discardableResult
    public static func verifyViewerToken(
        _ token: Substring,
        key: String,
        secret: String,
        now: Int64
    ) throws(Failure) -> Int64 {
        let parts = token.split(separator: "-", maxSplits: 1)
        guard parts.count == 2, let expiry = Int64(parts[0]) else { throw .malformed }
        try verify(key: key, expiry: expiry, signature: String(parts[1]), secret: secret, now: now)
        return expiry
    }
}
