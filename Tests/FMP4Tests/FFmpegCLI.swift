import Foundation

/// Runs the ffmpeg / ffprobe command-line tools for real-decoder tests.
enum FFmpegCLI {
    /// Whether both tools are on the PATH (the tests are skipped otherwise).
    static let available: Bool = ["ffmpeg", "ffprobe"].allSatisfy { path(of: $0) != nil }

    /// Full path of `tool` from PATH.
    static func path(of tool: String) -> String? {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return dirs.map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `tool` with `arguments`, returning stdout; throws with stderr on a non-zero exit.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let result = try runCapturing(tool, arguments)
        guard result.status == 0 else { throw Failure(tool: tool, arguments: arguments, stderr: result.stderr) }
        return result.stdout
    }

    /// Runs `tool` and returns its exit status, stdout and stderr.
    static func runCapturing(
        _ tool: String,
        _ arguments: [String]
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path(of: tool) ?? "/usr/bin/\(tool)")
        process.arguments = arguments
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Files, not pipes: a chatty tool cannot block on a full pipe buffer.
        let outURL = dir.appendingPathComponent("stdout")
        let errURL = dir.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return (
            process.terminationStatus, String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
        )
    }

    /// What ffmpeg reports at `-v warning` while decoding all of `file` (empty when the decode is clean).
    static func decodeDiagnostics(_ file: URL) throws -> String {
        try runCapturing("ffmpeg", ["-v", "warning", "-i", file.path, "-f", "null", "-"]).stderr
    }

    /// A tool exited non-zero.
    struct Failure: Error, CustomStringConvertible {
        var tool: String
        var arguments: [String]
        var stderr: String
        var description: String { "\(tool) \(arguments.joined(separator: " ")) failed: \(stderr)" }
    }

    /// A fresh temporary directory, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fmp4-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// ffprobe's decoded frame count and format duration of `file`.
    static func probeDecoded(_ file: URL, stream: String) throws -> (frames: Int, duration: Double) {
        let frames = try run(
            "ffprobe",
            [
                "-v", "error", "-count_frames", "-select_streams", stream, "-show_entries", "stream=nb_read_frames",
                "-of", "csv=p=0", file.path,
            ]
        )
        let duration = try run(
            "ffprobe",
            ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file.path]
        )
        return (
            Int(frames.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1,
            Double(duration.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        )
    }
}
