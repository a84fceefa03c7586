import HTTPClient
import NIOCore

extension ClusterRelay {
    /// The field a relay's request carries: the owner never relays it on (no loop when the registry is stale).
    public static let relayHeader = "X-Sluice-Relay"

    /// GETs `target` from `owner` on a pooled keep-alive connection; the status, the passed-on fields and the body.
    static func fetch(
        _ target: String,
        from owner: HTTPLocation,
        pool: RelayConnectionPool,
        timeout: Duration,
        node: String
    ) async throws(ClusterRelayError) -> RelayedResponse {
        let connection = pool.take(owner)
        let answer: HTTPClientResponse
        do {
            answer = try await connection.request("GET", target, headers: [(relayHeader, node)], timeout: timeout)
        } catch {
            await connection.close()
            throw .ownerUnreachable(owner: owner.origin, target: target, error)
        }
        await pool.giveBack(connection, owner)
        let headers = RelayedResponse.passedOn.compactMap { lower, name in
            answer.headers[lower].map { (name: name, value: $0) }
        }
        return RelayedResponse(status: answer.status, headers: headers, body: ByteBuffer(bytes: answer.body))
    }
}
