import CodecFormats
import FFmpegBridge
import Foundation
import MediaCore
import TestSupport

/// Test inputs made by the real `ffmpeg` CLI, and helpers to inspect what the bridge and the ladder wrote.
public enum TestMedia {
    /// An FLV of testsrc2 (H.264, GOP 30) plus a sine tone (AAC at `audioRate`, mono).
    public static func makeFLV(
        in dir: URL,
        name: String,
        size: String = "1280x720",
        seconds: Double = 3,
        bFrames: Int = 0,
        audioRate: Int = 44_100
    ) throws -> String {
        let path = dir.appendingPathComponent("\(name).flv").path
        let (status, _) = try ExternalTool.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30",
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=\(audioRate)", "-t", "\(seconds)",
                "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-g", "30", "-bf", "\(bFrames)",
                "-c:a", "aac", "-ac", "1", "-f", "flv", path,
            ]
        )
        guard status == 0 else { throw TestMediaError.ffmpegFailed(status) }
        return path
    }

    /// Every frame of a file, in decode order.
    public static func frames(of path: String) throws -> (StreamDescription, [MediaFrame]) {
        let source = try MediaFileSource(path: path)
        var frames: [MediaFrame] = []
        while let f = try source.nextFrame() { frames.append(f) }
        return (source.streamDescription, frames)
    }

    /// ffprobe's decoded frame count and size for a raw Annex B H.264 file.
    public static func probeH264(_ path: String) throws -> (frames: Int, width: Int, height: Int) {
        let (_, out) = try ExternalTool.run(
            "ffprobe",
            [
                "-v", "error", "-f", "h264", "-count_frames", "-select_streams", "v:0", "-show_entries",
                "stream=nb_read_frames,width,height", "-of", "csv=p=0", path,
            ]
        )
        let parts = out.split(whereSeparator: { $0 == "," || $0 == "\n" }).compactMap { Int($0) }
        guard parts.count >= 3 else { throw TestMediaError.unexpectedProbe(out) }
        return (parts[2], parts[0], parts[1])
    }

    /// An Annex B elementary stream: the avcC's SPS/PPS, then every access unit.
    public static func annexB(avcC: [UInt8], frames: [MediaFrame]) throws -> [UInt8] {
        let record = try AVCDecoderConfigurationRecord(parsing: avcC)
        var out: [UInt8] = []
        for nal in record.sequenceParameterSets + record.pictureParameterSets { out += [0, 0, 0, 1] + nal }
        for f in frames { out += try H264.annexB(fromAVCC: f.data) }
        return out
    }
}

/// Failures of the test tooling itself.
public enum TestMediaError: Error {
    case ffmpegFailed(Int32)
    case unexpectedProbe(String)
}
