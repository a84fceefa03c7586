import Synchronization

/// Counts open connections per peer IP so one address cannot take every session slot.
final class ConnectionLimiter: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    /// Most concurrent connections per IP; 0 means unlimited.
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Takes a slot for `ip`; false (and nothing taken) when it already holds `limit`.
    func open(_ ip: String) -> Bool {
        counts.withLock { c in
            let n = c[ip, default: 0]
            guard limit == 0 || n < limit else { return false }
            c[ip] = n + 1
            return true
        }
    }

    /// Gives back the slot taken by `open`.
    func close(_ ip: String) {
        counts.withLock { c in
            let n = c[ip, default: 0] - 1
            c[ip] = n > 0 ? n : nil
        }
    }

    /// Connections currently counted for `ip`.
    func count(_ ip: String) -> Int { counts.withLock { $0[ip, default: 0] } }
}
