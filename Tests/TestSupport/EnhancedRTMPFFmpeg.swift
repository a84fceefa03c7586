import Foundation

/// FFmpeg 9, the one real E-RTMP writer on these machines, as the PyPI package imageio-ffmpeg ships it.
public enum EnhancedRTMPFFmpeg {
    /// The binary's path, nil when imageio-ffmpeg is not installed (tests that need it are then disabled).
    public static let path: String? = {
        guard
            let result = try? ExternalTool.runCapturing(
                "python3",
                ["-c", "import imageio_ffmpeg as i; print(i.get_ffmpeg_exe())"]
            ), result.status == 0
        else { return nil }
        let path = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()

    /// Encodes `seconds` of testsrc2 at `size` with `videoCodec` arguments (e.g. `["-c:v", "libx265"]`) into an FLV
    /// file and returns its bytes; nil when FFmpeg 9 is missing or failed.
    public static func flv(videoCodec: [String], size: String = "320x240", seconds: Int = 2) -> [UInt8]? {
        flv(inputs: ["testsrc2=size=\(size):rate=25"], videoCodec: videoCodec, seconds: seconds)
    }

    /// Two video tracks (testsrc2 320x240 as track 0, testsrc 160x120 as track 1): FFmpeg 9 writes the second as
    /// E-RTMP Multitrack packets beside the first.
    public static func multitrackFLV(videoCodec: [String], seconds: Int = 2) -> [UInt8]? {
        flv(
            inputs: ["testsrc2=size=320x240:rate=25", "testsrc=size=160x120:rate=25"],
            videoCodec: videoCodec,
            seconds: seconds
        )
    }

    /// `seconds` of each lavfi input, one video track each, encoded with `videoCodec` into FLV.
    static func flv(inputs: [String], videoCodec: [String], seconds: Int) -> [UInt8]? {
        guard let path else { return nil }
        guard let dir = try? ExternalTool.temporaryDirectory(prefix: "ertmp") else { return nil }
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.flv").path
        let arguments =
            ["-hide_banner", "-loglevel", "error", "-y"] + inputs.flatMap { ["-f", "lavfi", "-i", $0] }
            + inputs.indices.flatMap { ["-map", "\($0):v"] } + ["-t", "\(seconds)"] + videoCodec + [
                "-pix_fmt", "yuv420p", "-f", "flv", out,
            ]
        guard let result = try? ExternalTool.runCapturing(path, arguments), result.status == 0 else { return nil }
        return FileManager.default.contents(atPath: out).map { Array($0) }
    }
}
