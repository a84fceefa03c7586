import WebRTCWire

/// draft-ietf-wish-whep-03 server choices for every WHEP viewer (`whep.*`): how many, how much is queued and kept
/// for repair, how often keyframes may be forced, and the dedicated WebRTC rung's encoder.
public struct WHEPEgressConfiguration: Sendable {
    /// Most WHEP viewers at once across all streams (0: no limit); one more POST answers 503 (`whep.max_viewers`).
    public var maxViewers: Int = 500
    /// `Retry-After` of that 503 (`whep.retry_after_s`).
    public var retryAfter: Duration = .seconds(5)
    /// Largest SDP offer read, in bytes; a bigger one answers 413.
    public var maxOfferBytes: Int = SessionDescription.defaultSizeLimit
    /// RTP packets one viewer may have waiting for encryption; past it that viewer drops until the next keyframe
    /// (`whep.viewer_queue_packets`).
    public var viewerQueuePackets: Int = 1_024
    /// Video packets each stream keeps to answer NACKs (`whep.nack_history_packets`; ~3 s at 2.5 Mb/s).
    public var videoHistoryPackets: Int = 1_024
    /// Audio packets each stream keeps to answer NACKs (256 × 20 ms ≈ 5 s).
    public var audioHistoryPackets: Int = 256
    /// Keyframe requests (new viewers, PLI/FIR) are merged into at most one per this interval per stream; one inside
    /// the interval waits for its end (or for a keyframe that comes first), never dropped.
    public var keyframeRequestInterval: Duration = .milliseconds(500)
    /// The same for the join rung (`whep.join_keyframe_interval_ms`): only joining viewers watch it, each until its
    /// own rendition's next keyframe, so its IDRs cost no settled viewer a picture, and a viewer joining just after
    /// another need not wait out the long window.
    public var joinKeyframeRequestInterval: Duration = .milliseconds(150)
    /// RTCP sender report period per track (RFC 3550 §6.2; short so players sync audio and video early).
    public var senderReportInterval: Duration = .seconds(1)
    /// How long a POST waits for a stream that is live but has not described its tracks yet.
    public var describeWait: Duration = .seconds(3)
    /// How long a POST watches the source's first video frames for reordering (B-frames) before choosing it.
    public var reorderProbe: Duration = .milliseconds(600)
    /// Largest RTP payload (1200 leaves room for SRTP and IP/UDP under a 1280-byte path MTU).
    public var maxPayloadSize: Int = 1_200
    /// Target bit rate of the dedicated WebRTC rung (`whep.rung_bitrate_kbps`), used when no rendition qualifies.
    public var rungBitRate: Int = 2_000_000
    /// A viewer whose rendition cannot give it a keyframe now (an RTMP passthrough cannot be asked; a WHIP passthrough
    /// or the WebRTC rung inside its keyframe window) starts on the join rung's IDR and moves onto its rendition at
    /// that rendition's next keyframe (`whep.join_on_rung`); off: it waits for that keyframe.
    public var joinOnRung: Bool = true
    /// A viewer whose receiver estimate (REMB) cannot carry its rendition moves to a lower ladder rung at that rung's
    /// next keyframe, and back when the estimate allows (`whep.adapt_to_bandwidth`; `WHEPBandwidthAdaptation`).
    public var adaptToBandwidth: Bool = true
    /// x264 preset of the dedicated WebRTC rung.
    public var rungPreset: String = "veryfast"
    /// Opus bit rate for AAC sources transcoded once per stream (`whep.opus_bitrate_kbps`).
    public var opusBitRate: Int = 96_000
    /// How long viewers are held when the publisher leaves, waiting for it to come back (`whep.reconnect_grace_s`).
    public var reconnectGrace: Duration = .seconds(10)
    /// Frames the hub buffers for a stream's WHEP feed before it drops the oldest.
    public var readerCapacity: Int = 256
    /// IP addresses announced as extra host candidates on the bound port (shared with WHIP: `webrtc.additional_hosts`).
    public var additionalHosts: [String] = []

    /// The defaults.
    public init() {}
}
