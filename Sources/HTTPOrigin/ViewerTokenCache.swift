import MediaCore
import Synchronization

/// Viewer tokens (`/t/{token}/live/{key}/…`, docs/AUTH.md) the fast path already verified, with their expiry: a
/// token is checked by HMAC once, then every request of its viewers is one dictionary look-up.
final class ViewerTokenCache: Sendable {
    let secret: String
    /// Most tokens kept; the cache starts over when full (new windows keep arriving, old ones expire).
    let capacity: Int
    private let verified = Mutex<[String: Int64]>([:])

    init(secret: String, capacity: Int = 4_096) {
        self.secret = secret
        self.capacity = capacity
    }

    /// Whether `token` admits viewers of `key` at `now` (seconds since 1970), as `SignedToken.verifyViewerToken` says.
    func admits(_ token: Substring, key: String, now: Int64) -> Bool {
        let entry = "\(key)/\(token)"
        if let expiry = verified.withLock({ $0[entry] }) { return expiry >= now }
        guard let expiry = try? SignedToken.verifyViewerToken(token, key: key, secret: secret, now: now) else {
            return false
        }
        verified.withLock {
            if $0.count >= capacity { $0.removeAll(keepingCapacity: true) }
            $0[entry] = expiry
        }
        return true
    }

    /// Tokens kept now.
    var count: Int { verified.withLock { $0.count } }
}
