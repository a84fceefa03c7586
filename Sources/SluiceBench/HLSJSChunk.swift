import Foundation

/// The hls.js ES-module chunk the player page imports, extracted from the PyPI wheel gradio==6.31.0 by
/// `make hlsjs` (Tests/e2e/hlsjs.py) into .build/hlsjs/hls-chunk.js; never committed.
enum HLSJSChunk {
    /// Where the chunk is looked for when no path is given: .build/hlsjs/ above the executable
    /// (.build/release/sluice), then under the working folder.
    static func candidates() -> [String] {
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        let beside = executable.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("hlsjs/hls-chunk.js").path
        let cwd = FileManager.default.currentDirectoryPath + "/.build/hlsjs/hls-chunk.js"
        return beside == cwd ? [cwd] : [beside, cwd]
    }

    /// The chunk's bytes from `path`, or the first candidate that exists.
    static func load(_ path: String?) -> Result<[UInt8], BenchError> {
        let paths = path.map { [$0] } ?? candidates()
        for p in paths {
            if let data = FileManager.default.contents(atPath: p) { return .success(Array(data)) }
        }
        return .failure(.hlsjsMissing(path: paths.joined(separator: " or ")))
    }
}
