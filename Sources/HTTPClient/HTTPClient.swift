import NIOCore
import NIOPosix

/// The gateway's HTTP/1.1 client for one-off exchanges (WHIP signaling, the publish webhook, `sluice stats`): one
/// request on a fresh `HTTPConnection` (TLS for https), bounded as a whole by `timeout`.
public struct HTTPClient: Sendable {
    /// Limit for connect plus the whole response.
    public var timeout: Duration
    /// The `User-Agent` field sent.
    public var userAgent: String
    private let group: any EventLoopGroup

    /// A client on `group`.
    public init(
        timeout: Duration = .seconds(10),
        userAgent: String = "sluice",
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.timeout = timeout
        self.userAgent = userAgent
        self.group = group
    }

    /// Sends `method url` with `headers` and `body`, and returns the whole response whatever its status.
    public func request(
        _ method: String,
        _ url: HTTPLocation,
        headers extra: [(String, String)] = [],
        body: [UInt8]? = nil
    ) async throws(HTTPClientError) -> HTTPClientResponse {
        let connection = HTTPConnection(origin: url, userAgent: userAgent, group: group, connectTimeout: timeout)
        let result: Result<HTTPClientResponse, HTTPClientError>
        do {
            result = .success(
                try await connection.request(
                    method,
                    url.target,
                    headers: [("Connection", "close")] + extra,
                    body: body ?? [],
                    timeout: timeout
                )
            )
        } catch {
            result = .failure(error)
        }
        await connection.close()
        return try result.get()
    }
}
