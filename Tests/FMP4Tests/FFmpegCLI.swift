import Foundation
import TestSupport

/// Runs the ffmpeg / ffprobe command-line tools for real-decoder tests.
enum FFmpegCLI {
    /// Whether both tools are on the PATH (the tests are skipped otherwise).
    static let available: Bool = ["ffmpeg", "ffprobe"].allSatisfy { ExternalTool.find($0) != nil }

    /// Runs `tool` with `arguments`, returning stdout; throws with stderr on a non-zero exit.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let result = try ExternalTool.runCapturing(tool, arguments)
        guard result.status == 0 else { throw Failure(tool: tool, arguments: arguments, stderr: result.stderr) }
        return result.stdout
    }

    /// What ffmpeg reports at `-v warning` while decoding all of `file` (empty when the decode is clean).
    static func decodeDiagnostics(_ file: URL) throws -> String {
        try ExternalTool.runCapturing("ffmpeg", ["-v", "warning", "-i", file.path, "-f", "null", "-"]).stderr
    }

    /// A tool exited non-zero.
    struct Failure: Error, CustomStringConvertible {
        var tool: String
        var arguments: [String]
        var stderr: String
        var description: String { "\(tool) \(arguments.joined(separator: " ")) failed: \(stderr)" }
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
