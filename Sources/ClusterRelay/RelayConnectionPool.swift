import HTTPClient
import Synchronization

/// Idle keep-alive connections to each owner: a fetch takes one (or opens one) and gives it back when its answer is
/// complete, so concurrent blocking reloads each have their own and sequential fetches reuse them.
final class RelayConnectionPool: Sendable {
    private let idle = Mutex<[String: [HTTPConnection]]>([:])
    /// Most idle connections kept per owner.
    let maxIdle: Int

    init(maxIdle: Int = 16) { self.maxIdle = maxIdle }

    /// An idle connection to `owner`, or a new one.
    func take(_ owner: HTTPLocation) -> HTTPConnection {
        let name = "\(owner.host):\(owner.port)"
        if let reused = idle.withLock({ $0[name]?.popLast() }) { return reused }
        return HTTPConnection(origin: owner, userAgent: "sluice-relay")
    }

    /// Keeps `connection` for the next fetch (closing it when enough are idle).
    func giveBack(_ connection: HTTPConnection, _ owner: HTTPLocation) async {
        let name = "\(owner.host):\(owner.port)"
        let kept = idle.withLock { pools -> Bool in
            guard pools[name, default: []].count < maxIdle else { return false }
            pools[name, default: []].append(connection)
            return true
        }
        if !kept { await connection.close() }
    }
}
