import RTMPWire

/// Tunables of the RTMP ingest, with defaults that suit OBS and FFmpeg publishers.
public struct RTMPIngestConfiguration: Sendable {
    /// The only application name accepted in `connect` (`rtmp://host/<app>/<key>`).
    public var application: String = "live"
    /// Outgoing chunk size announced right after connect.
    public var chunkSize: Int = 4096
    /// Largest message a publisher may send (a keyframe must fit).
    public var maxMessageSize: Int = 8 << 20
    /// Largest chunk size a publisher may set.
    public var maxChunkSize: Int = 16 << 20
    /// Window acknowledgement size announced to the publisher.
    public var windowAcknowledgementSize: UInt32 = 2_500_000
    /// Peer bandwidth announced to the publisher (limit type dynamic).
    public var peerBandwidth: UInt32 = 2_500_000
    /// The handshake must finish within this.
    public var handshakeTimeout: Duration = .seconds(10)
    /// A connection that sends nothing for this long is closed.
    public var idleTimeout: Duration = .seconds(30)
    /// Deepest AMF0 nesting accepted.
    public var maxAMF0Depth: Int = 32
    /// Most concurrent connections from one IP address; 0 means unlimited.
    public var maxSessionsPerIP: Int = 8
    /// The RTMPS listener; nil keeps RTMPS off.
    public var tls: RTMPTLSConfiguration?

    /// Creates the default configuration.
    public init() {}

    /// The chunk decoder limits implied by this configuration.
    var chunkLimits: ChunkDecoder.Limits {
        ChunkDecoder.Limits(maxMessageSize: maxMessageSize, maxChunkSize: maxChunkSize)
    }
}
