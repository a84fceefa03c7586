import HTTPOrigin

/// The hls.js ES-module chunk the bench's player page imports, found where the gateway finds the copy it serves
/// (`PlayerLibrary`).
enum HLSJSChunk {
    /// The chunk's bytes from `path`, or the first candidate that exists.
    static func load(_ path: String?) -> Result<[UInt8], BenchError> {
        if let found = PlayerLibrary.load(path) { return .success(found.bytes) }
        let paths = path.map { [$0] } ?? PlayerLibrary.candidates()
        return .failure(.hlsjsMissing(path: paths.joined(separator: " or ")))
    }
}
