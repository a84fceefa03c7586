import Foundation
import MediaCore

/// The bench's pre-encoded sources: testsrc2 + a 440 Hz tone, 30 fps, 1 s GOP, no B-frames, made once by the `ffmpeg`
/// CLI (Debian's libx264, libx265 and libsvtav1) and kept in the temporary folder.
///
/// `sluice bench --transcode-only` times the ladder on such a file (the same bytes for us and the ffmpeg CLI); the
/// latency scenarios publish the live test pattern instead, whatever its codec.
enum BenchSourceFile {
    /// The FFmpeg encoder arguments per codec: x265 closed GOP, SVT-AV1 low delay (as test_ertmp.py publishes).
    static func encoderArguments(_ codec: Codec) -> [String] {
        switch codec {
        case .hevc:
            [
                "-c:v", "libx265", "-preset", "ultrafast", "-tag:v", "hvc1", "-b:v", "2500k", "-x265-params",
                "bframes=0:keyint=30:min-keyint=30:scenecut=0:open-gop=0:log-level=error",
            ]
        case .av1:
            [
                "-c:v", "libsvtav1", "-preset", "12", "-g", "30", "-b:v", "2500k", "-svtav1-params",
                "scd=0:pred-struct=1",
            ]
        case .h264, .aac, .opus:
            ["-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-bf", "0"]
        }
    }

    /// The file's path for `codec`, `seconds` long at `width`x`height`; made if missing.
    static func path(codec: Codec, seconds: Int, width: Int = 1280, height: Int = 720) throws(BenchError) -> String {
        // H.264 keeps the FLV name and container earlier runs made; HEVC/AV1 need MP4's hvcC/av1C.
        let name =
            codec == .h264 ? "sluice-bench-\(seconds)s.flv" : "sluice-bench-\(codec)-\(width)x\(height)-\(seconds)s.mp4"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        if FileManager.default.fileExists(atPath: path) { return path }
        // Written beside, then renamed: a bench killed mid-encode leaves no truncated source behind.
        let partial = path + ".partial" + (codec == .h264 ? ".flv" : ".mp4")
        var args = [
            "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=30",
        ]
        if codec != .h264 {
            args += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-map", "0:v", "-map", "1:a"]
            args += ["-c:a", "aac", "-b:a", "128k"]
        }
        args += ["-t", "\(seconds)"] + encoderArguments(codec) + ["-pix_fmt", "yuv420p", partial]
        _ = try TranscodeBench.runTool("ffmpeg", args)
        do { try FileManager.default.moveItem(atPath: partial, toPath: path) } catch {
            throw .writeFailed(path: path, reason: "\(error)")
        }
        return path
    }
}
