import CodecFormats
import HTTPOrigin
import LLHLSPackager
import Logging
import RTMPIngest
import Recorder
import SRTIngest
import StreamHub
import Transcoder
import WHEPEgress
import WHIPIngest

/// Everything `sluice serve` reads from Config/sluice.yaml; each field's default is the documented one.
public struct SluiceConfiguration: Sendable {
    /// Address every listener binds (`bind`).
    public var bind: String = "0.0.0.0"
    /// RTMP ingest port (`rtmp.port`).
    public var rtmpPort: Int = 1935
    /// HTTP origin port (`http.port`).
    public var httpPort: Int = 8080
    /// WebRTC (WHIP) UDP port every session shares (`webrtc.port`).
    public var webrtcPort: Int = 8189
    /// Addresses the WebRTC port binds and announces as ICE host candidates (`webrtc.hosts`).
    public var webrtcHosts: [String] = ["127.0.0.1"]
    /// A WebRTC session that sends nothing (no STUN, DTLS or media) this long is ended (`webrtc.consent_timeout_s`).
    public var webrtcConsentTimeout: Duration = .seconds(10)
    /// WHIP sessions: extra announced hosts, reorder wait, session limit (`webrtc.*`).
    public var whip = WHIPIngestConfiguration()
    /// WHEP playback: viewer limit, queues, NACK history, WebRTC rung (`whep.*`).
    public var whep = WHEPEgressConfiguration()
    /// RTMP ingest tunables (`rtmp.*`).
    public var rtmp = RTMPIngestConfiguration()
    /// SRT ingest: port (0 = off), latency window, passphrase (`srt.*`).
    public var srt = SRTIngestConfiguration()
    /// LL-HLS packaging (`hls.*`).
    public var hls = Self.defaultHLS
    /// Hot standby, failover and the slate (`ingest.*`); the slate's run is `hls.reconnect_grace_s`.
    public var onAir = OnAirConfiguration()
    /// A PNG or JPEG the slate shows instead of "BACK SHORTLY" (`ingest.slate_image`).
    public var slateImage: String?

    /// The packager's settings as the gateway runs them: the early first segment covers short GOPs too when the top
    /// rendition is always transcoded (then no listed segment starts without a keyframe), when asked to cut the
    /// passthrough between its keyframes, or (for a source without B-frames) when the ladder bridges the first
    /// keyframe interval (`transcode.fast_start`). With the ladder's `source_rendition: auto`, the first multivariant
    /// waits for the rung that replaces a long-GOP passthrough.
    public var effectiveHLS: LLHLSConfiguration {
        var h = hls
        h.firstSegment?.evenWithShortGOPs =
            h.firstSegmentCutsPassthrough || (transcode && ladder.sourceRendition == .transcode)
        h.firstSegment?.bridgesShortGOPs = transcode && ladder.sourceRendition == .auto && ladder.fastStart
        h.awaitsSourceRung = transcode && ladder.sourceRendition == .auto
        // With the slate on, the hub keeps the air for the grace: once it ends, so do the playlists.
        if onAir.slate { h.reconnectGrace = .zero }
        return h
    }

    /// The packager's defaults, plus a 0.4 s early first segment (`hls.first_segment_s`) for fast start.
    static var defaultHLS: LLHLSConfiguration {
        var h = LLHLSConfiguration()
        h.firstSegment = EarlyFirstSegment(length: .milliseconds(400))
        // A streamer who drops gets a minute of slate before the stream ends.
        h.reconnectGrace = .seconds(60)
        return h
    }
    /// Log level (`log.level`): trace, debug, info, notice, warning, error, critical.
    public var logLevel: Logger.Level = .info
    /// Log line format (`log.format`).
    public var logFormat: LogFormat = .text
    /// Serve HTTP/2 besides HTTP/1.1 (`http.http2`): h2c by prior knowledge without TLS, ALPN h2 with TLS.
    public var http2: Bool = true
    /// On SIGTERM/SIGINT, `/readyz` answers 503 this long before anything stops (`http.drain_delay_s`).
    public var drainDelay: Duration = .zero
    /// PEM certificate chain for HTTPS (`http.tls.cert`); HTTPS is on when this and `tlsKey` are set.
    public var tlsCertificate: String?
    /// PEM private key for HTTPS (`http.tls.key`).
    public var tlsKey: String?
    /// Where the player page loads hls.js from (`pages.hlsjs_url`): a classic script or an ES module; by default the
    /// gateway's own copy (`PlayerLibrary.servedPath`), so the page plays without the internet.
    public var hlsjsURL: String = PlayerLibrary.servedPath
    /// Stream key the built-in test pattern publishes to with `--demo` (`demo.key`).
    public var demoKey: String = "demo"
    /// Transcode every stream into an ABR ladder (`transcode.enabled`); off keeps passthrough only.
    public var transcode: Bool = true
    /// The ladder (`transcode.rungs`, `transcode.max_rungs`, `transcode.preset`).
    public var ladder = LadderConfiguration()
    /// Recording (`record.*`).
    public var record = RecorderConfiguration()
    /// Bearer token the admin API requires (`api.admin_token`); nil: admin writes only from loopback peers.
    public var adminToken: String?

    /// Several origins behind one edge: registry, relay, edge routing (`cluster.*`).
    public var cluster = Cluster()

    /// Live-stream and origin limits, publish auth and viewer tokens (`limits.*`, `auth.*`).
    public var security = SecurityConfiguration()

    /// The defaults.
    public init() {}
}

/// A configuration value that is missing its rules; names the key and what is allowed.
public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    /// Dotted key path, e.g. `hls.part_target_ms`.
    public var key: String
    /// What the key accepts.
    public var allowed: String
    /// What was found.
    public var found: String

    /// Creates the error.
    public init(key: String, allowed: String, found: String) {
        self.key = key
        self.allowed = allowed
        self.found = found
    }

    public var description: String { "config key '\(key)': expected \(allowed), found \(found)" }
}
