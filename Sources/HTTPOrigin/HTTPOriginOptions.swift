/// How the origin listens, what its pages load and which features add routes: HTTP/2, TLS files, the hls.js URL,
/// readiness.
public struct HTTPOriginOptions: Sendable {
    /// Also speak HTTP/2: ALPN `h2` over TLS, h2c by prior knowledge (RFC 9113 §3.3) on a plaintext port.
    public var http2: Bool = true
    /// PEM certificate chain and private key paths; when set the port serves HTTPS only.
    public var tls: (certificate: String, key: String)?
    /// Where `/watch/{key}` loads hls.js from: a classic script defining `window.Hls` or an ES module.
    public var hlsjsURL: String = PlayerLibrary.cdnURL
    /// The hls.js ES module served at `PlayerLibrary.servedPath` (nil: that path answers 404).
    public var hlsjsModule: [UInt8]?
    /// What `/readyz` reports; the app marks it ready once every listener is bound and draining on shutdown.
    public var readiness = OriginReadiness()
    /// Answer LL-HLS media playlists and media on the event loops (`LiveFastPath`) instead of through the router; off
    /// only to compare the two (tests, benchmarks): responses are the same.
    public var fastPath = true
    /// Viewer tokens and blocking-request limits.
    public var access = OriginAccess()

    /// Values the pages show that only the app knows, e.g. `rtmpPort` for the OBS server URL on `/`.
    public var pageValues: [String: String] = [:]
    /// Answers `/live/{key}/…` for keys this origin does not serve (the cluster relay); nil: they are unknown.
    public var streamFallback: StreamFallback?
    /// Routes features add (WHIP's `/whip/…` from the app): the origin serves them without knowing the feature.
    public var routeGroups: [OriginRouteGroup] = []

    /// The defaults: HTTP/1.1 + h2c, no TLS, hls.js from jsDelivr.
    public init() {}
}
