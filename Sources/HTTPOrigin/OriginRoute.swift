/// One endpoint a feature adds to the origin (WHIP today; WHEP and recordings next), in the origin's own terms so
/// the feature never sees the HTTP server's types.
public struct OriginRoute: Sendable {
    /// The request methods a contributed route may answer; OPTIONS is the origin's (CORS preflight).
    public enum Method: String, Sendable, CaseIterable {
        case get = "GET"
        case post = "POST"
        case put = "PUT"
        case patch = "PATCH"
        case delete = "DELETE"
    }

    /// The method answered.
    public var method: Method
    /// The path with `:name` parameters, one per level, e.g. `/whip/:key/:session`.
    public var path: String
    /// Answers one request; failures are replies (a status and a reason), not thrown errors.
    public var handle: @Sendable (OriginRequest) async -> OriginReply

    /// Creates a route.
    public init(_ method: Method, _ path: String, handle: @escaping @Sendable (OriginRequest) async -> OriginReply) {
        self.method = method
        self.path = path
        self.handle = handle
    }
}
