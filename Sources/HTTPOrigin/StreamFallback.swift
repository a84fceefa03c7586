import MediaCore
import NIOCore

/// Answers `/live/{key}/…` for a stream this origin does not serve, e.g. the cluster relay fetching it from the node
/// that does; the origin asks it only where it would otherwise answer "unknown stream".
public struct StreamFallback: Sendable {
    /// The answer for `target` (`/live/{key}/…[?query]`, as received) of `key`; nil answers as for a stream that is
    /// not live (the playlist's start wait, then 404).
    public var answer: @Sendable (_ key: StreamKey, _ target: String) async -> FallbackResponse?

    /// A fallback answering with `answer`.
    public init(answer: @escaping @Sendable (_ key: StreamKey, _ target: String) async -> FallbackResponse?) {
        self.answer = answer
    }
}

/// A fallback's answer as the origin sends it: status, fields (type, caching, age) and the shared body; the origin
/// adds its CORS fields.
public struct FallbackResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields, in order.
    public var headers: [(name: String, value: String)]
    /// The body, written without a copy.
    public var body: ByteBuffer

    /// A response from its parts.
    public init(status: Int, headers: [(name: String, value: String)], body: ByteBuffer) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
