import Logging

/// What a contributed route sees of a request: path parameters, header fields, the peer, and a bounded body.
public struct OriginRequest: Sendable {
    /// The body was longer than the limit given to `body(upTo:)`.
    public struct BodyTooLarge: Error, Sendable, Equatable {
        /// The limit, in bytes.
        public var limit: Int
    }

    /// Values of the route's `:name` path parameters.
    public var parameters: [String: String]
    /// Header fields by lowercased name; repeated fields joined with ", " (RFC 9110 §5.3).
    public var headers: [String: String]
    /// Query parameters (the last value of a repeated name).
    public var query: [String: String] = [:]
    /// The TCP peer's IP address; nil when unknown (router tests).
    public var peerIP: String?
    /// The request's logger (carries its request id).
    public var logger: Logger
    let readBody: @Sendable (Int) async throws -> [UInt8]

    /// Creates a request; `readBody` collects at most its argument's bytes or throws.
    public init(
        parameters: [String: String],
        headers: [String: String],
        peerIP: String?,
        logger: Logger,
        readBody: @escaping @Sendable (Int) async throws -> [UInt8]
    ) {
        self.parameters = parameters
        self.headers = headers
        self.peerIP = peerIP
        self.logger = logger
        self.readBody = readBody
    }

    /// The value of header field `name` (any case).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// Reads the whole body; throws `BodyTooLarge` past `limit` bytes. Not reading it costs nothing.
    public func body(upTo limit: Int) async throws(BodyTooLarge) -> [UInt8] {
        do { return try await readBody(limit) } catch { throw BodyTooLarge(limit: limit) }
    }
}
