/// Percentiles of one hop for one rendition, in milliseconds (nearest rank over every sample since the stream began).
public struct HopPercentiles: Sendable, Codable, Equatable {
    /// Samples recorded.
    public var count: Int
    /// Median, milliseconds.
    public var p50Ms: Double
    /// 90th percentile, milliseconds.
    public var p90Ms: Double
    /// 99th percentile, milliseconds.
    public var p99Ms: Double
    /// Largest sample, milliseconds.
    public var maxMs: Double

    /// Creates percentiles.
    public init(count: Int, p50Ms: Double, p90Ms: Double, p99Ms: Double, maxMs: Double) {
        self.count = count
        self.p50Ms = p50Ms
        self.p90Ms = p90Ms
        self.p99Ms = p99Ms
        self.maxMs = maxMs
    }
}

/// What telemetry knows about one rendition (`video`, `audio`, or a rung such as `480p`) of a stream.
public struct RenditionTelemetry: Sendable, Codable, Equatable {
    /// Rendition name.
    public var name: String
    /// Per-hop percentiles, keyed by `Hop.rawValue`; hops never recorded are absent.
    public var hops: [String: HopPercentiles] = [:]
    /// Frames received by ingest (source renditions only).
    public var framesIn = 0
    /// Bytes received by ingest (source renditions only).
    public var bytesIn = 0
    /// Frames inside published parts.
    public var framesOut = 0
    /// Bytes of responses the origin wrote for this rendition (playlists and media).
    public var bytesOut = 0
    /// Parts published.
    public var partsPublished = 0
    /// Frames dropped, by the reader or stage that dropped them (`hls`, `transcoder`, `encoder`).
    public var framesDropped: [String: Int] = [:]
    /// Frames per second published over the last 5 s.
    public var fps: Double = 0
    /// Bits per second published over the last 5 s (media payload in parts).
    public var bitRate: Int = 0

    /// Empty telemetry for a rendition.
    public init(name: String) { self.name = name }

    /// Percentiles of one hop, if recorded.
    public func percentiles(_ hop: Hop) -> HopPercentiles? { hops[hop.rawValue] }

    /// Every frame dropped, over all readers.
    public var totalFramesDropped: Int { framesDropped.values.reduce(0, +) }
}

/// What telemetry knows about one stream: its renditions and its audience.
public struct StreamTelemetry: Sendable, Codable, Equatable {
    /// The publisher's stream key.
    public var stream: String
    /// Renditions by name.
    public var renditions: [String: RenditionTelemetry] = [:]
    /// See `GatewayTelemetry.viewers(stream:)`.
    public var viewers = 0
    /// Blocking playlist requests waiting right now.
    public var blockingRequestsWaiting = 0
    /// HTTP requests by `HTTPRequestKind.rawValue`.
    public var httpRequests: [String: Int] = [:]
    /// WHIP sessions and RTP loss/repair counters; nil for a stream never published over WebRTC.
    public var webrtc: WebRTCStreamTelemetry?
    /// SRT sessions and libsrt link figures; nil for a stream never published over SRT.
    public var srt: SRTStreamTelemetry?
    /// Video tracks received but not served (E-RTMP multitrack beyond the first), by track id.
    public var otherVideoTracks: [IngestTrack] = []

    /// Empty telemetry for a stream.
    public init(stream: String) { self.stream = stream }
}
