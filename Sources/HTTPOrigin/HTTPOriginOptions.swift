import WHIPIngest

/// How the origin listens and what its pages load: HTTP/2, TLS files, the hls.js URL, readiness.
public struct HTTPOriginOptions: Sendable {
    /// Also speak HTTP/2: ALPN `h2` over TLS, h2c by prior knowledge (RFC 9113 §3.3) on a plaintext port.
    public var http2: Bool = true
    /// PEM certificate chain and private key paths; when set the port serves HTTPS only.
    public var tls: (certificate: String, key: String)?
    /// Where `/watch/{key}` loads hls.js from: a classic script defining `window.Hls` or an ES module.
    public var hlsjsURL: String = "https://cdn.jsdelivr.net/npm/hls.js@1/dist/hls.min.js"
    /// What `/readyz` reports; the app marks it ready once every listener is bound and draining on shutdown.
    public var readiness = OriginReadiness()
    /// Viewer tokens and blocking-request limits.
    public var access = OriginAccess()

    /// WebRTC ingest behind `POST /whip/{key}`; nil answers 503.
    public var whip: WHIPIngestService?
    /// Decides each WHIP POST (bearer token, key, peer); nil allows every publish (router tests).
    public var whipAuthorizer: WHIPAuthorizer?

    /// The defaults: HTTP/1.1 + h2c, no TLS, hls.js from jsDelivr.
    public init() {}
}
