import NIOCore

/// What the owner answered for one path, as this node passes it on: the status, the fields a viewer or edge needs
/// (type, caching, publication instant) and the body, shared by every viewer it is written to.
public struct RelayedResponse: Sendable {
    /// The owner's status code.
    public var status: Int
    /// `Content-Type`, `Cache-Control` and `X-Sluice-Published` as the owner sent them (absent ones left out), then
    /// `Age` when the copy comes from this node's cache.
    public var headers: [(name: String, value: String)]
    /// The body, one storage for every viewer.
    public var body: ByteBuffer

    /// A response from its parts.
    public init(status: Int, headers: [(name: String, value: String)], body: ByteBuffer) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the first field called `name` (any case).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The fields passed on from an owner's response (lowercased names, as `HTTPClientResponse` keeps them).
    static let passedOn = [
        ("content-type", "Content-Type"), ("cache-control", "Cache-Control"),
        ("x-sluice-published", "X-Sluice-Published"),
    ]
}
