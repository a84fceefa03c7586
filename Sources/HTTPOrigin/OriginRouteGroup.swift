/// A feature's routes under one path prefix, with the CORS preflight its browser clients need.
public struct OriginRouteGroup: Sendable {
    /// Every route's path starts with this (`/whip/`); OPTIONS requests under it get `preflight`.
    public var prefix: String
    /// The endpoints.
    public var routes: [OriginRoute]
    /// Header fields of the 204 answer to an OPTIONS under `prefix`, over the origin's GET-only defaults
    /// (`Access-Control-Allow-Methods`, `-Allow-Headers`, `-Expose-Headers`, …).
    public var preflight: [String: String]

    /// Creates a group.
    public init(prefix: String, routes: [OriginRoute], preflight: [String: String] = [:]) {
        self.prefix = prefix
        self.routes = routes
        self.preflight = preflight
    }
}
