import Foundation

/// The ffmpeg CLI as an RTMP server on a free loopback port, recording what it receives into `output` (a real peer
/// for the RTMP publisher's tests).
public struct FFmpegRTMPRecorder {
    /// `rtmp://127.0.0.1:PORT/live/KEY`, the URL to publish to.
    public let url: String
    /// The FLV file ffmpeg writes.
    public let output: String
    /// The ffmpeg process; it exits on its own once the publisher disconnects.
    public let process: Process

    /// Starts ffmpeg (`tool`: Debian's, or FFmpeg 9's path for E-RTMP) listening for `key`, writing `file` into
    /// `directory` in `format`.
    public init(
        in directory: URL,
        key: String = "x",
        file: String = "out.flv",
        tool: String = "ffmpeg",
        format: String = "flv"
    ) throws {
        url = "rtmp://127.0.0.1:\(ExternalTool.freePort())/live/\(key)"
        output = directory.appendingPathComponent(file).path
        process = try ExternalTool.start(
            tool,
            [
                "-hide_banner", "-loglevel", "error", "-listen", "1", "-f", "flv", "-i", url, "-c", "copy", "-f",
                format,
                output,
            ]
        )
    }

    /// Waits up to `limit` for ffmpeg to exit (it does once the publisher has closed); true when it did.
    public func waitForExit(limit: Duration = .seconds(10)) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        return !process.isRunning
    }

    /// Stops ffmpeg if it is still running.
    public func stop() { if process.isRunning { process.terminate() } }
}
