// swift-tools-version: 6.1
import PackageDescription

/// libFuzzer targets, one per parser, over the main package's pure parsers; each `@main` hands its test to FuzzSupport's driver.
///
/// A separate package so the main `swift build` never sees `-sanitize=fuzzer`. Build one target with
/// `swift build --package-path Fuzz --scratch-path .build-fuzz -c debug -Xswiftc -sanitize=fuzzer,address --product FuzzAMF0`
/// (or `make fuzz`, which builds and runs them all).
let targets = [
    "FuzzRTMPHandshake", "FuzzChunkStream", "FuzzAMF0", "FuzzFLVTag", "FuzzRTMPMessage",
    "FuzzPlaylistQuery", "FuzzH264", "FuzzAAC", "FuzzMP4Box", "FuzzSEI",
    "FuzzExVideoTag", "FuzzHEVC", "FuzzAV1",
]
/// WebRTC wire targets.
let webRTCTargets = ["FuzzSDP", "FuzzSTUN", "FuzzRTP", "FuzzRTCP", "FuzzH264RTP", "FuzzWHEP"]
/// SRT ingest targets: the MPEG-TS demuxer and the stream id.
let srtTargets = ["FuzzMPEGTS", "FuzzSRTStreamID"]
/// Cluster targets: RESP2 replies (the Redis client's parser).
let clusterTargets = ["FuzzRESP"]
let settings: [SwiftSetting] = [.swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "SluiceFuzz",
    platforms: [.macOS(.v15)],
    products: (targets + webRTCTargets + srtTargets + clusterTargets).map { .executable(name: $0, targets: [$0]) },
    dependencies: [.package(name: "Sluice", path: "..")],
    targets: [.target(name: "CFuzzDriver"), .target(name: "FuzzSupport", dependencies: ["CFuzzDriver"], swiftSettings: settings)]
        + (targets + webRTCTargets + srtTargets + clusterTargets).map {
            .executableTarget(
                name: $0, dependencies: ["FuzzSupport", .product(name: "SluiceParsers", package: "Sluice")],
                swiftSettings: settings)
        }
)
