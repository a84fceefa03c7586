// swift-tools-version: 6.1
import PackageDescription

/// Upcoming features every target opts into (house style: nio, Hummingbird).
let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Sluice",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "sluice", targets: ["sluice"]),
        // The pure parsers, for the libFuzzer package in Fuzz/ (a path dependency can only use products).
        .library(
            name: "SluiceParsers",
            targets: [
                "MediaCore", "CodecFormats", "RTMPWire", "FMP4", "HLSPlaylist", "LLHLSPackager", "WebRTCWire", "MPEGTS",
                "SRTWire", "RedisWire",
            ]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // RTMPS ingest; already resolved through Hummingbird.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.29.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        // NIOHTTPTypes (request and response parts on the origin's fast path); already resolved through Hummingbird.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
    ],
    targets: [
        // L0: vocabulary and C shims.
        .target(name: "MediaCore", dependencies: ["COpenSSL"], swiftSettings: strictSettings),
        .systemLibrary(
            name: "CFFmpeg", pkgConfig: "libavformat libavcodec libavutil libswscale libswresample",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]),
        .systemLibrary(name: "CRTMP", pkgConfig: "librtmp", providers: [.apt(["librtmp-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
        // libsrt's GnuTLS build: the one Debian's libavformat links, so one libsrt in the process.
        .systemLibrary(name: "CSRT", pkgConfig: "srt", providers: [.apt(["libsrt-gnutls-dev"])]),

        // L1: pure formats (no sockets, no clocks).
        .target(name: "CodecFormats", dependencies: ["MediaCore"], swiftSettings: strictSettings),
        .target(name: "RTMPWire", dependencies: ["MediaCore", "CodecFormats"], swiftSettings: strictSettings),
        .target(name: "FMP4", dependencies: ["MediaCore", "CodecFormats"], swiftSettings: strictSettings),
        .target(name: "HLSPlaylist", dependencies: ["MediaCore"], swiftSettings: strictSettings),
        .target(name: "WebRTCWire", dependencies: ["MediaCore", "CodecFormats"], swiftSettings: strictSettings),
        // MPEG-TS demux (SRT ingest, the bench's classic-HLS viewer) and SRT's stream id.
        .target(name: "MPEGTS", dependencies: ["MediaCore", "CodecFormats"], swiftSettings: strictSettings),
        .target(name: "SRTWire", dependencies: ["MediaCore"], swiftSettings: strictSettings),
        // RESP2, the Redis protocol: commands out, replies parsed incrementally (the cluster registry's client).
        .target(name: "RedisWire", swiftSettings: strictSettings),

        // L2: engines.
        .target(name: "StreamHub", dependencies: ["MediaCore"], swiftSettings: strictSettings),
        .target(
            name: "FFmpegBridge", dependencies: ["MediaCore", "CodecFormats", "CFFmpeg"],
            swiftSettings: strictSettings),

        // The one HTTP/1.1 client stack (and URL parser): WHIP signaling, the publish webhook, `sluice stats`, the bench.
        .target(
            name: "HTTPClient",
            dependencies: [
                "MediaCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ], swiftSettings: strictSettings),

        // The Redis client (RESP2 over SwiftNIO): one pipelined connection, the commands the registry uses.
        .target(
            name: "RedisClient",
            dependencies: [
                "RedisWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ], swiftSettings: strictSettings),

        .target(
            name: "Telemetry",
            dependencies: [
                "MediaCore",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ], swiftSettings: strictSettings),

        .target(
            name: "WebRTCTransport",
            dependencies: [
                "MediaCore", "WebRTCWire", "COpenSSL", "CSRTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strictSettings),

        // L3: features.
        // Who may publish (key list, signed keys, webhook, anonymous rule), for every ingest protocol.
        .target(name: "PublishAuth", dependencies: ["MediaCore", "HTTPClient"], swiftSettings: strictSettings),
        // The cluster registry: which node holds which stream, in Redis, with TTLs refreshed while live.
        .target(
            name: "StreamRegistry",
            dependencies: [
                "MediaCore", "RedisClient", "RedisWire",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ], swiftSettings: strictSettings),
        // Any node serves any stream: `/live/{key}/…` of a key another node holds, fetched once per node from it.
        .target(
            name: "ClusterRelay",
            dependencies: [
                "MediaCore", "HTTPClient",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strictSettings),
        .target(
            name: "RTMPIngest",
            dependencies: [
                "MediaCore", "RTMPWire", "CodecFormats", "StreamHub", "PublishAuth", "Telemetry",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ], swiftSettings: strictSettings),
        // Publisher inputs and real-time pacing, shared by every publish protocol (RTMP, WHIP, SRT next).
        .target(
            name: "MediaSources", dependencies: ["MediaCore", "CodecFormats", "FFmpegBridge"],
            swiftSettings: strictSettings),
        .target(
            name: "RTMPPublish",
            dependencies: [
                "MediaCore", "RTMPWire", "CodecFormats", "FFmpegBridge", "MediaSources", "CRTMP",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings),
        // The bench's SRT publisher: MPEG-TS over a libsrt caller.
        .target(
            name: "SRTPublish",
            dependencies: [
                "MediaCore", "MPEGTS", "CSRT", "FFmpegBridge", "MediaSources",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings),
        .target(
            name: "WHIPPublish",
            dependencies: [
                "MediaCore", "CodecFormats", "WebRTCWire", "WebRTCTransport", "FFmpegBridge", "MediaSources", "HTTPClient",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strictSettings),
        .target(
            name: "LLHLSPackager",
            dependencies: [
                "MediaCore", "CodecFormats", "FMP4", "HLSPlaylist", "StreamHub", "Telemetry",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strictSettings),

        .target(
            name: "WHIPIngest",
            dependencies: [
                "MediaCore", "CodecFormats", "WebRTCWire", "WebRTCTransport", "StreamHub", "FFmpegBridge", "Telemetry",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strictSettings),

        // Keeps what the packager completes as HLS VOD on disk; serves the listing and the files to the origin's routes.
        .target(
            name: "Recorder",
            dependencies: [
                "MediaCore", "HLSPlaylist", "LLHLSPackager", "FMP4",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strictSettings),

        // WebRTC playback (draft-ietf-wish-whep): viewers as sending sessions on the shared WebRTC port.
        .target(
            name: "WHEPEgress",
            dependencies: [
                "MediaCore", "CodecFormats", "WebRTCWire", "WebRTCTransport", "StreamHub", "FFmpegBridge", "Telemetry",
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strictSettings),

        .target(
            name: "SRTIngest",
            dependencies: [
                "MediaCore", "CodecFormats", "MPEGTS", "SRTWire", "CSRT", "StreamHub", "PublishAuth", "Telemetry",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ], swiftSettings: strictSettings),

        .target(
            name: "Transcoder",
            dependencies: [
                "MediaCore", "CodecFormats", "StreamHub", "FFmpegBridge", "Telemetry",
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strictSettings),

        // L4: edges.
        .target(
            name: "HTTPOrigin",
            dependencies: [
                "MediaCore", "LLHLSPackager", "HLSPlaylist", "Telemetry",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The pages are compiled into the binary: no resource bundle to find at run time.
            resources: [
                .embedInCode("Pages/index.html"), .embedInCode("Pages/watch.html"), .embedInCode("Pages/dashboard.html"),
                .embedInCode("Pages/publish.html"),
                .embedInCode("Pages/sluice.css"), .embedInCode("Pages/sluice.js"), .embedInCode("Pages/sluice-player.js"),
            ], swiftSettings: strictSettings),
        .target(
            name: "SluiceApp",
            dependencies: [
                "MediaCore", "CodecFormats", "StreamHub", "RTMPIngest", "LLHLSPackager", "HTTPOrigin", "FFmpegBridge",
                "Transcoder", "Telemetry", "WHIPIngest", "WHEPEgress", "WebRTCTransport", "WebRTCWire", "PublishAuth",
                "HTTPClient", "Recorder", "SRTIngest", "StreamRegistry", "RedisClient", "ClusterRelay",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
            ], swiftSettings: strictSettings),
        .target(
            name: "SluiceBench",
            dependencies: [
                "MediaCore", "CodecFormats", "FMP4", "HLSPlaylist", "SluiceApp", "MediaSources", "RTMPPublish", "WHIPPublish",
                "Telemetry", "HTTPClient", "MPEGTS", "SRTPublish",
                // The WHEP viewer: our WebRTC transport (DTLS client, SRTP) and RTP depacketizing.
                "WebRTCTransport", "WebRTCWire",
                // The transcode-only bench runs the ladder's own pieces over a file.
                "FFmpegBridge", "Transcoder",
                // The load generator embeds a gateway (hub, packager, origin) to read part publication instants.
                "StreamHub", "LLHLSPackager", "HTTPOrigin",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The real-player page (`sluice bench --player hlsjs|native`), compiled into the binary.
            resources: [.embedInCode("Pages/bench-player.html")], swiftSettings: strictSettings),
        .executableTarget(
            name: "sluice",
            dependencies: [
                "SluiceApp", "SluiceBench", "MediaSources", "RTMPPublish", "WHIPPublish", "SRTPublish", "SRTWire",
                "MediaCore", "LLHLSPackager", "Transcoder", "HTTPClient", "Recorder",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strictSettings),

        // Tests.
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strictSettings),
        // Media made by the ffmpeg CLI and read back (SEI, Ogg Opus), for the bridge's and the ladder's tests.
        .target(
            name: "MediaTestSupport", dependencies: ["MediaCore", "CodecFormats", "FFmpegBridge", "TestSupport"],
            path: "Tests/MediaTestSupport", swiftSettings: strictSettings),
        .testTarget(name: "MediaCoreTests", dependencies: ["MediaCore"], swiftSettings: strictSettings),
        .testTarget(name: "CodecFormatsTests", dependencies: ["CodecFormats", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(name: "RTMPWireTests", dependencies: ["RTMPWire", "CodecFormats", "MediaCore", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(name: "FMP4Tests", dependencies: ["FMP4", "CodecFormats", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(name: "HLSPlaylistTests", dependencies: ["HLSPlaylist", "MediaCore", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(name: "WebRTCWireTests", dependencies: ["WebRTCWire", "MediaCore", "CodecFormats", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "WebRTCTransportTests",
            dependencies: ["WebRTCTransport", "WebRTCWire", "MediaCore", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strictSettings),
        .testTarget(
            name: "WHIPIngestTests",
            dependencies: ["WHIPIngest", "WebRTCWire", "WebRTCTransport", "StreamHub", "MediaCore", "FFmpegBridge", "Telemetry", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strictSettings),
        .testTarget(
            name: "WHEPEgressTests",
            dependencies: ["WHEPEgress", "WebRTCWire", "WebRTCTransport", "StreamHub", "MediaCore", "CodecFormats", "Telemetry", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strictSettings),
        .testTarget(
            name: "WHIPPublishTests",
            dependencies: ["WHIPPublish", "WHIPIngest", "WebRTCWire", "WebRTCTransport", "StreamHub", "MediaCore", "FFmpegBridge", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strictSettings),
        .testTarget(
            name: "TelemetryTests",
            dependencies: ["Telemetry", "MediaCore", "StreamHub", "Transcoder", "FFmpegBridge", "LLHLSPackager", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strictSettings),
        .testTarget(
            name: "SluiceBenchTests",
            dependencies: ["SluiceBench", "SluiceApp", "FFmpegBridge", "FMP4", "CodecFormats", "MediaCore",
                "MediaSources", "RTMPPublish", "HLSPlaylist", "HTTPClient", "TestSupport", "WebRTCWire",
                "WebRTCTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strictSettings),
        .testTarget(
            name: "HTTPClientTests",
            dependencies: [
                "HTTPClient", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ], swiftSettings: strictSettings),
        .testTarget(
            name: "PublishAuthTests",
            dependencies: [
                "PublishAuth", "MediaCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ], swiftSettings: strictSettings),
        .testTarget(name: "StreamHubTests", dependencies: ["StreamHub", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "MPEGTSTests", dependencies: ["MPEGTS", "CodecFormats", "MediaCore", "TestSupport"],
            swiftSettings: strictSettings),
        .testTarget(name: "SRTWireTests", dependencies: ["SRTWire", "MediaCore"], swiftSettings: strictSettings),
        .testTarget(name: "RedisWireTests", dependencies: ["RedisWire", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "RedisClientTests",
            dependencies: [
                "RedisClient", "RedisWire", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ], swiftSettings: strictSettings),
        .testTarget(
            name: "StreamRegistryTests",
            dependencies: [
                "StreamRegistry", "RedisClient", "MediaCore", "TestSupport",
            ], swiftSettings: strictSettings),
        .testTarget(
            name: "ClusterRelayTests",
            dependencies: [
                "ClusterRelay", "HTTPClient", "MediaCore",
                .product(name: "NIOCore", package: "swift-nio"),
            ], swiftSettings: strictSettings),
        .testTarget(
            name: "SRTIngestTests",
            dependencies: [
                "SRTIngest", "SRTWire", "StreamHub", "PublishAuth", "MediaCore", "Telemetry", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strictSettings),
        .testTarget(
            name: "RTMPIngestTests",
            dependencies: [
                "RTMPIngest", "RTMPWire", "StreamHub", "MediaCore", "PublishAuth", "CodecFormats", "TestSupport",
                "Telemetry",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            ], swiftSettings: strictSettings),
        .testTarget(
            name: "LLHLSPackagerTests",
            dependencies: [
                "LLHLSPackager", "FMP4", "HLSPlaylist", "StreamHub", "MediaCore", "CodecFormats", "Telemetry", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "HTTPOriginTests",
            dependencies: [
                "HTTPOrigin", "LLHLSPackager", "MediaCore", "StreamHub", "CodecFormats",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strictSettings),
        .testTarget(
            name: "SluiceAppTests", dependencies: ["SluiceApp", "LLHLSPackager", "RTMPIngest", "Transcoder", "MediaCore",
                "WHIPIngest", "WebRTCTransport", "TestSupport", "HTTPOrigin", "PublishAuth", "StreamHub", "Recorder",
                "StreamRegistry", "RedisClient",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "FFmpegBridgeTests",
            dependencies: ["FFmpegBridge", "MediaCore", "CodecFormats", "TestSupport", "MediaTestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "MediaSourcesTests", dependencies: ["MediaSources", "MediaCore", "CodecFormats"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "RTMPPublishTests",
            dependencies: ["RTMPPublish", "FFmpegBridge", "MediaCore", "RTMPWire", "CodecFormats", "TestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "RecorderTests",
            dependencies: ["Recorder", "LLHLSPackager", "MediaCore", "FMP4", "CodecFormats", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings),
        // The `sluice` command's own pieces (the stats screen), through its executable module.
        .testTarget(name: "SluiceCLITests", dependencies: ["sluice"], swiftSettings: strictSettings),
        .testTarget(
            name: "TranscoderTests",
            dependencies: [
                "Transcoder", "FFmpegBridge", "StreamHub", "MediaCore", "CodecFormats", "TestSupport", "MediaTestSupport",
            ],
            swiftSettings: strictSettings),
    ]
)
