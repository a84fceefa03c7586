import MediaCore

/// One protocol path `sluice bench` measures end to end, named as on the command line (`rtmp-llhls-ladder`).
public struct BenchScenario: Sendable, Equatable, CustomStringConvertible {
    /// How media reaches the viewer in this scenario.
    public enum Path: Sendable, Equatable {
        /// RTMP into the embedded (or `--gateway`) Sluice; the viewer follows `rendition`.
        case sluice(lowLatency: Bool, transcode: Bool, rendition: String)
        /// RTMP into nginx with libnginx-mod-rtmp writing classic HLS (MPEG-TS segments of `fragmentSeconds`):
        /// the outside anchor.
        case nginxRTMP(fragmentSeconds: Int)
        /// WHIP (our own publisher: H.264 + Opus over WebRTC) into the embedded (or `--gateway`) Sluice; the viewer
        /// follows `rendition`.
        case whip(transcode: Bool, rendition: String)
        /// SRT (our libsrt caller: the test pattern in MPEG-TS, capture clock in SEI) into the embedded (or
        /// `--gateway`) Sluice; the viewer follows `rendition`.
        case srt(transcode: Bool, rendition: String)
        /// RTMP (or our WHIP publisher when `overWHIP`) into the embedded (or `--gateway`) Sluice, watched by the
        /// bench's own WHEP viewers offering H.264 in `profiles`: the gateway picks what they get.
        case whep(overWHIP: Bool, transcode: Bool, profiles: [String])
    }

    /// Command-line name.
    public var id: String
    /// One line for the table and the docs.
    public var title: String
    /// What runs.
    public var path: Path
    /// The publisher's video codec: the live test pattern (pixel clock included) encoded with libx264, or libx265 /
    /// SVT-AV1 and sent as E-RTMP.
    public var sourceCodec: Codec = .h264
    /// Consecutive B-frames the publisher's encoder makes (the HEVC scenario: 2, as OBS's x265 and NVENC send).
    public var sourceBFrames = 0

    public var description: String { id }

    /// True when the viewer behaves like hls.js in low-latency mode (parts, blocking reload).
    public var lowLatencyViewer: Bool {
        if case .sluice(let ll, _, _) = path { return ll }
        if case .whip = path { return true }
        if case .srt = path { return true }
        if case .whep = path { return true }
        return false
    }

    /// True when WebRTC viewers (the bench's WHEP client) watch instead of HLS players.
    public var isWHEP: Bool {
        if case .whep = path { return true }
        return false
    }

    /// Every scenario, in table order.
    public static let all: [BenchScenario] = [
        BenchScenario(
            id: "rtmp-llhls",
            title: "RTMP -> LL-HLS, passthrough (200 ms parts, 1 s segments)",
            path: .sluice(lowLatency: true, transcode: false, rendition: "video")
        ),
        BenchScenario(
            id: "rtmp-llhls-ladder",
            title: "RTMP -> LL-HLS, ladder (model: top transcoded rung; real players: multivariant, ABR)",
            path: .sluice(lowLatency: true, transcode: true, rendition: "480p")
        ),
        BenchScenario(
            id: "rtmp-hevc-llhls-ladder",
            title:
                "E-RTMP HEVC (live x265, 2 B-frames) -> LL-HLS, hvc1 passthrough + H.264 ladder (model: top H.264 rung)",
            path: .sluice(lowLatency: true, transcode: true, rendition: "480p"),
            sourceCodec: .hevc,
            sourceBFrames: 2
        ),
        BenchScenario(
            id: "rtmp-hevc-nob-llhls-ladder",
            title: "E-RTMP HEVC (live x265, no B-frames) -> LL-HLS, as rtmp-hevc-llhls-ladder: what its B-frames cost",
            path: .sluice(lowLatency: true, transcode: true, rendition: "480p"),
            sourceCodec: .hevc
        ),
        BenchScenario(
            id: "rtmp-av1-llhls-ladder",
            title:
                "E-RTMP AV1 (live SVT-AV1, low delay) -> LL-HLS, av01 passthrough + H.264 ladder (model: top H.264 rung)",
            path: .sluice(lowLatency: true, transcode: true, rendition: "480p"),
            sourceCodec: .av1
        ),
        BenchScenario(
            id: "srt-llhls",
            title: "SRT -> LL-HLS, passthrough, 120 ms SRT latency (200 ms parts, 1 s segments)",
            path: .srt(transcode: false, rendition: "video")
        ),
        BenchScenario(
            id: "srt-llhls-ladder",
            title: "SRT -> LL-HLS, ladder, 120 ms SRT latency (model: top transcoded rung)",
            path: .srt(transcode: true, rendition: "480p")
        ),
        BenchScenario(
            id: "rtmp-hls",
            title: "RTMP -> classic HLS (1 s segments, player 3 segments behind)",
            path: .sluice(lowLatency: false, transcode: false, rendition: "video")
        ),
        BenchScenario(
            id: "nginx-rtmp-hls",
            title: "RTMP -> nginx-rtmp classic HLS (2 s fragments, MPEG-TS, player 3 behind)",
            path: .nginxRTMP(fragmentSeconds: 2)
        ),
        BenchScenario(
            id: "nginx-rtmp-hls-1s",
            title: "RTMP -> nginx-rtmp classic HLS (1 s fragments, MPEG-TS, player 3 behind)",
            path: .nginxRTMP(fragmentSeconds: 1)
        ),
        BenchScenario(
            id: "whip-llhls",
            title: "WHIP -> LL-HLS, passthrough video, Opus -> AAC (200 ms parts, 1 s segments)",
            path: .whip(transcode: false, rendition: "video")
        ),
        BenchScenario(
            id: "whip-llhls-ladder",
            title: "WHIP -> LL-HLS, ladder (model: top transcoded rung; real players: multivariant, ABR)",
            path: .whip(transcode: true, rendition: "480p")
        ),
        BenchScenario(
            id: "rtmp-whep",
            title: "RTMP -> WHEP, passthrough (bench WHEP client offers High/Main/Baseline; glass = frame complete)",
            path: .whep(overWHIP: false, transcode: false, profiles: WHEPViewerOffer.anyProfile)
        ),
        BenchScenario(
            id: "rtmp-whep-ladder",
            title:
                "RTMP -> WHEP through a rung (ladder on; client offers constrained baseline 42e01f only, like Chromium)",
            path: .whep(overWHIP: false, transcode: true, profiles: WHEPViewerOffer.constrainedBaseline)
        ),
        BenchScenario(
            id: "whip-whep",
            title: "WHIP -> WHEP, passthrough H.264 and Opus (keyframes asked of our WHIP publisher)",
            path: .whep(overWHIP: true, transcode: false, profiles: WHEPViewerOffer.anyProfile)
        ),
    ]

    /// The scenario with this name.
    public static func named(_ id: String) -> BenchScenario? { all.first { $0.id == id } }

    /// Why this scenario cannot run here; nil when it can. With `--gateway` the remote's own configuration
    /// decides what a Sluice scenario sees (classic mode, ladder), so the user picks matching scenarios.
    public var unavailableReason: String? {
        switch path {
        case .nginxRTMP: NginxRTMPInstall.unavailableReason()
        case .sluice, .whip, .srt, .whep: nil
        }
    }
}
