import Foundation

/// hls.js as the gateway serves it at `/pages/hls.mjs` (the watch page's default `pages.hlsjs_url`): the ES-module
/// chunk `make hlsjs` extracts from the PyPI wheel gradio==6.31.0 into .build/hlsjs/hls-chunk.js, never committed.
public enum PlayerLibrary {
    /// The path the watch page loads the served copy from.
    public static let servedPath = "/pages/hls.mjs"
    /// Where the page loads hls.js from when no copy is on disk (`pages.hlsjs_url` may name it, or any other URL).
    public static let cdnURL = "https://cdn.jsdelivr.net/npm/hls.js@1/dist/hls.min.js"

    /// Where the chunk is looked for when no path is given: .build/hlsjs/ of the build holding the executable
    /// (.build/debug/sluice, .build/x86_64-unknown-linux-gnu/release/sluice), then under the working folder.
    public static func candidates(executable: String = CommandLine.arguments.first ?? "") -> [String] {
        var out: [String] = []
        var dir = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<3 {
            dir = dir.deletingLastPathComponent()
            if dir.lastPathComponent.hasPrefix(".build") {
                out.append(dir.appendingPathComponent("hlsjs/hls-chunk.js").path)
                break
            }
        }
        let cwd = FileManager.default.currentDirectoryPath + "/.build/hlsjs/hls-chunk.js"
        if !out.contains(cwd) { out.append(cwd) }
        return out
    }

    /// The chunk's path and bytes from `path`, or from the first candidate that exists; nil when none does.
    public static func load(_ path: String?) -> (path: String, bytes: [UInt8])? {
        for p in path.map({ [$0] }) ?? candidates() {
            if let data = FileManager.default.contents(atPath: p) { return (p, Array(data)) }
        }
        return nil
    }
}
