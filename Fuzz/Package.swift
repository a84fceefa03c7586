// swift-tools-version: 6.1
import PackageDescription

/// libFuzzer targets, one per parser, over the main package's pure parsers.
///
/// A separate package so the main `swift build` never sees `-sanitize=fuzzer`. Build one target with
/// `swift build --package-path Fuzz --scratch-path .build-fuzz -c debug -Xswiftc -sanitize=fuzzer,address --product FuzzAMF0`
/// (or `make fuzz`, which builds and runs them all).
let targets = [
    "FuzzRTMPHandshake", "FuzzChunkStream", "FuzzAMF0", "FuzzFLVTag", "FuzzRTMPMessage",
    "FuzzPlaylistQuery", "FuzzH264", "FuzzAAC", "FuzzMP4Box",
]

let package = Package(
    name: "SluiceFuzz",
    platforms: [.macOS(.v15)],
    products: targets.map { .executable(name: $0, targets: [$0]) },
    dependencies: [.package(name: "Sluice", path: "..")],
    targets: [.target(name: "CFuzzDriver")]
        + targets.map {
            .executableTarget(
                name: $0,
                dependencies: ["CFuzzDriver", .product(name: "SluiceParsers", package: "Sluice")],
                swiftSettings: [.swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny")])
        }
)
