import Foundation
import MediaCore
import Transcoder

/// `sluice bench --transcode-only`: our ladder against the `ffmpeg` CLI doing the identical ladder, in one run.
public enum TranscodeBench {
    /// What to run.
    public struct Options: Sendable {
        /// H.264 FLV/MP4 (or HEVC/AV1 MP4) source; nil generates a testsrc2 720p30 clip with a 1 s GOP.
        public var input: String?
        /// The generated source's codec (`hevc`: the E-RTMP ladder, HEVC decode + H.264 rungs).
        public var codec: Codec = .h264
        /// Length of the generated source.
        public var seconds = 30
        /// x264 preset for both sides.
        public var preset = "veryfast"

        /// Defaults: generated 30 s source, veryfast.
        public init() {}
    }

    /// Both sides' figures.
    public struct Report: Sendable {
        /// The source file used.
        public var source: String
        /// The x264 preset.
        public var preset: String
        /// Our ladder's run.
        public var ours: LadderBenchmarkResult
        /// Peak RSS of this process after our ladder, KiB.
        public var oursPeakRSSKiB: Int
        /// Wall time of the ffmpeg CLI doing the same ladder, seconds.
        public var ffmpegSeconds: Double
        /// The ffmpeg CLI's peak RSS (`-benchmark`), KiB.
        public var ffmpegPeakRSSKiB: Int

        /// Our wall time over ffmpeg's (target <= 1.0).
        public var ratio: Double { ours.wallTime.secondsDouble / ffmpegSeconds }

        /// The report as the command prints it.
        public var text: String {
            func fmt(_ v: Double) -> String { String(format: "%.2f", v) }
            let frames = Double(ours.frames)
            var lines = [
                "source: \(source)",
                "ladder: \(ours.rungs.map { "\($0.name) \($0.width)x\($0.height)" }.joined(separator: ", ")), preset \(preset), \(ours.frames) frames",
                "sluice  \(fmt(ours.wallTime.secondsDouble)) s  (\(fmt(frames / ours.wallTime.secondsDouble)) fps end to end)  peak RSS \(oursPeakRSSKiB / 1024) MiB",
                "ffmpeg  \(fmt(ffmpegSeconds)) s  (\(fmt(frames / ffmpegSeconds)) fps end to end)  peak RSS \(ffmpegPeakRSSKiB / 1024) MiB",
                "ratio   \(fmt(ratio)) x ffmpeg's time (target <= 1.0)",
            ]
            for r in ours.rungs {
                lines.append("  \(r.name): \(fmt(r.framesPerSecond)) fps (scale + encode, per rung thread)")
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// Runs our ladder, then the CLI's, over the same source.
    public static func run(_ options: Options) throws(BenchError) -> Report {
        let source: String
        if let input = options.input {
            source = input
        } else {
            source = try BenchSourceFile.path(codec: options.codec, seconds: options.seconds)
        }
        var config = LadderConfiguration()
        config.preset = options.preset
        let ours: LadderBenchmarkResult
        do { ours = try LadderBenchmark.run(path: source, configuration: config) } catch {
            throw .transcodeFailed(path: source, reason: "\(error)")
        }
        let oursRSS = ProcessUsage.read(pid: "self")?.peakRSSKiB ?? 0
        let theirs = try runFFmpegLadder(source: source, rungs: ours.rungs, config: config)
        return Report(
            source: source,
            preset: options.preset,
            ours: ours,
            oursPeakRSSKiB: oursRSS,
            ffmpegSeconds: theirs.seconds,
            ffmpegPeakRSSKiB: theirs.maxRSSKiB
        )
    }

    /// The same ladder through the CLI: one decode, split, scale, libx264 with our exact settings, null output.
    private static func runFFmpegLadder(
        source: String,
        rungs: [LadderBenchmarkResult.Rung],
        config: LadderConfiguration
    ) throws(BenchError) -> (seconds: Double, maxRSSKiB: Int) {
        let labels = rungs.indices.map { "r\($0)" }
        var graph = "[0:v]split=\(rungs.count)" + labels.map { "[\($0)in]" }.joined() + ";"
        graph += zip(rungs, labels).map { r, l in "[\(l)in]scale=\(r.width):\(r.height):flags=bicubic[\(l)]" }.joined(
            separator: ";"
        )
        var args = ["-hide_banner", "-benchmark", "-y", "-i", source, "-filter_complex", graph]
        for (r, l) in zip(rungs, labels) {
            let kbps = config.rungs.first { $0.name == r.name }?.videoBitRate.bitsPerSecond ?? 1_000_000
            args += [
                "-map", "[\(l)]", "-c:v", "libx264", "-preset", config.preset, "-tune", "zerolatency",
                "-x264-params", "keyint=infinite:min-keyint=1:scenecut=0:bframes=0:open-gop=0", "-force_key_frames",
                "source",
                "-b:v", "\(kbps)", "-maxrate", "\(kbps * 11 / 10)", "-bufsize", "\(kbps)", "-f", "null", "-",
            ]
        }
        let start = ContinuousClock.now
        let log = try runTool("ffmpeg", args)
        let seconds = (ContinuousClock.now - start).secondsDouble
        // `-benchmark` prints "bench: maxrss=NNNkB" (KiB despite the unit's spelling).
        let rss = log.components(separatedBy: "maxrss=").last.flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
        return (seconds, rss)
    }

    static func runTool(_ tool: String, _ args: [String]) throws(BenchError) -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [tool] + args
        let pipe = Pipe()
        p.standardError = pipe
        p.standardOutput = FileHandle.nullDevice
        do { try p.run() } catch { throw .toolFailed(tool: tool, status: -1, output: "\(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard p.terminationStatus == 0 else {
            throw .toolFailed(tool: tool, status: p.terminationStatus, output: String(text.suffix(800)))
        }
        return text
    }
}
