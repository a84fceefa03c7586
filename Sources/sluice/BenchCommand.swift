import ArgumentParser
import Foundation
import MediaCore
import Transcoder

/// `sluice bench --transcode-only`: our ladder against the `ffmpeg` CLI doing the identical ladder, in one run.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks: latency scenarios (default), --transcode-only (ladder vs ffmpeg), --viewers N (fan-out load).")

    @Flag(help: "Time the ladder alone against the ffmpeg CLI instead of the latency scenarios.")
    var transcodeOnly = false

    @Option(help: "H.264 FLV/MP4 source (default: a generated testsrc2 720p30 with a 1 s GOP).")
    var input: String?

    @Option(help: "Length of the generated source in seconds.")
    var seconds = 30

    @Option(help: "x264 preset for both sides.")
    var preset = "veryfast"

    /// `--viewers N [--gateway URL] [--duration S]`: the fan-out load (BenchCommand+Viewers.swift).
    @OptionGroup var load: ViewerLoadOptions

    /// The latency scenarios (BenchCommand+Latency.swift); `--gateway` and `--duration` are shared with `--viewers`.
    @OptionGroup var latency: LatencyBenchOptions

    func run() throws {
        if load.viewers != nil { return try load.run() }
        guard transcodeOnly else {
            // --duration's declared default (20) belongs to --viewers; latency scenarios default to 30 s.
            let given = CommandLine.arguments.contains { $0 == "--duration" || $0.hasPrefix("--duration=") }
            return try latency.run(gateway: load.gateway, duration: given ? load.duration : LatencyBenchOptions.defaultDuration)
        }
        let source = try input ?? generateSource()
        var config = LadderConfiguration()
        config.preset = preset
        print("source: \(source)")
        let ours = try LadderBenchmark.run(path: source, configuration: config)
        let oursRSS = peakRSSKiB()
        let theirs = try runFFmpegLadder(source: source, rungs: ours.rungs, config: config)
        let ratio = ours.wallTime.secondsDouble / theirs.seconds
        print("ladder: \(ours.rungs.map { "\($0.name) \($0.width)x\($0.height)" }.joined(separator: ", ")), preset \(preset), \(ours.frames) frames")
        print("sluice  \(fmt(ours.wallTime.secondsDouble)) s  (\(fmt(Double(ours.frames) / ours.wallTime.secondsDouble)) fps end to end)  peak RSS \(oursRSS / 1024) MiB")
        print("ffmpeg  \(fmt(theirs.seconds)) s  (\(fmt(Double(ours.frames) / theirs.seconds)) fps end to end)  peak RSS \(theirs.maxRSSKiB / 1024) MiB")
        print("ratio   \(fmt(ratio)) x ffmpeg's time (target <= 1.0)")
        for r in ours.rungs { print("  \(r.name): \(fmt(r.framesPerSecond)) fps (scale + encode, per rung thread)") }
    }

    private func fmt(_ v: Double) -> String { String(format: "%.2f", v) }

    private func generateSource() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-bench-\(seconds)s.flv").path
        if FileManager.default.fileExists(atPath: path) { return path }
        _ = try runTool(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-t",
                "\(seconds)", "-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-bf", "0", "-pix_fmt", "yuv420p", path,
            ])
        return path
    }

    /// The same ladder through the CLI: one decode, split, scale, libx264 with our exact settings, null output.
    private func runFFmpegLadder(source: String, rungs: [LadderBenchmarkResult.Rung], config: LadderConfiguration) throws
        -> (seconds: Double, maxRSSKiB: Int)
    {
        let labels = rungs.indices.map { "r\($0)" }
        var graph = "[0:v]split=\(rungs.count)" + labels.map { "[\($0)in]" }.joined() + ";"
        graph += zip(rungs, labels).map { r, l in "[\(l)in]scale=\(r.width):\(r.height):flags=bicubic[\(l)]" }.joined(separator: ";")
        var args = ["-hide_banner", "-benchmark", "-y", "-i", source, "-filter_complex", graph]
        for (r, l) in zip(rungs, labels) {
            let kbps = config.rungs.first { $0.name == r.name }?.videoBitRate.bitsPerSecond ?? 1_000_000
            args += [
                "-map", "[\(l)]", "-c:v", "libx264", "-preset", config.preset, "-tune", "zerolatency",
                "-x264-params", "keyint=infinite:min-keyint=1:scenecut=0:bframes=0:open-gop=0", "-force_key_frames", "source",
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

    private func runTool(_ tool: String, _ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [tool] + args
        let pipe = Pipe()
        p.standardError = pipe
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard p.terminationStatus == 0 else {
            throw ValidationError("\(tool) failed (\(p.terminationStatus)): \(text.suffix(800))")
        }
        return text
    }

    private func peakRSSKiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss)
    }
}
