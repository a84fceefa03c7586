import ArgumentParser
import Foundation
import MediaCore
import SluiceBench

/// `sluice bench --transcode-only`: our ladder against the `ffmpeg` CLI doing the identical ladder, in one run.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract:
            "Benchmarks: latency scenarios (default), --transcode-only (ladder vs ffmpeg), --viewers N (fan-out load)."
    )

    @Flag(help: "Time the ladder alone against the ffmpeg CLI instead of the latency scenarios.")
    var transcodeOnly = false

    @Flag(help: "Time the source decoder alone: one thread against slice and frame threads, rounds interleaved.")
    var decodeOnly = false

    @Option(help: "With --decode-only: rounds per threading.")
    var rounds = 5

    @Option(help: "H.264 FLV/MP4 or HEVC/AV1 MP4 source (default: a generated testsrc2 720p30 with a 1 s GOP).")
    var input: String?

    @Option(help: "Codec of the generated source for --transcode-only: h264, hevc or av1 (HEVC/AV1 as from E-RTMP).")
    var sourceCodec = "h264"

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
        if decodeOnly {
            guard let input else { throw ValidationError("--decode-only needs --input FILE") }
            do { print(try DecodeBench.run(path: input, rounds: rounds).text, terminator: "") } catch {
                throw ValidationError("\(error)")
            }
            return
        }
        guard transcodeOnly else {
            // --duration's declared default (20) belongs to --viewers; latency scenarios default to 30 s.
            let given = CommandLine.arguments.contains { $0 == "--duration" || $0.hasPrefix("--duration=") }
            return try latency.run(
                gateway: load.gateway,
                duration: given ? load.duration : LatencyBenchOptions.defaultDuration
            )
        }
        var options = TranscodeBench.Options()
        options.input = input
        guard let codec = Codec(rawValue: sourceCodec), [.h264, .hevc, .av1].contains(codec) else {
            throw ValidationError("--source-codec must be h264, hevc or av1, not \(sourceCodec)")
        }
        options.codec = codec
        options.seconds = seconds
        options.preset = preset
        do {
            print(try TranscodeBench.run(options).text, terminator: "")
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
