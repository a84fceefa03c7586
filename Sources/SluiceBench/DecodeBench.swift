import CodecFormats
import FFmpegBridge
import Foundation
import MediaCore

#if canImport(Glibc)
import Glibc
#endif

/// `sluice bench --decode-only --input X`: the source decoder with one thread against the threading the ladder would
/// choose (and the other kind), rounds interleaved in one run so a shared machine's load hits every variant alike.
public enum DecodeBench {
    /// One threading's medians over the rounds.
    public struct Row: Sendable {
        /// The threading decoded with.
        public var threading: DecoderThreading
        /// Median wall time of one full decode, seconds.
        public var wallSeconds: Double
        /// Median process CPU time (user + system) of one full decode, seconds.
        public var cpuSeconds: Double
    }

    /// Every threading's row, the first being one thread (the ratios' reference).
    public struct Report: Sendable {
        /// The file decoded.
        public var source: String
        /// Pictures per decode.
        public var frames: Int
        /// Rounds run.
        public var rounds: Int
        /// What the live ladder would open for this source on this machine (with a 3-rung ladder).
        public var chosen: DecoderThreading
        /// One row per threading, `.single` first.
        public var rows: [Row]

        /// The report as the command prints it.
        public var text: String {
            func f(_ v: Double) -> String { String(format: "%.2f", v) }
            var lines = [
                "source: \(source), \(frames) pictures, \(rounds) interleaved rounds; the ladder chooses \(chosen)"
            ]
            guard let base = rows.first else { return lines.joined(separator: "\n") + "\n" }
            for r in rows {
                lines.append(
                    "\(r.threading): wall \(f(r.wallSeconds)) s (\(f(r.wallSeconds / base.wallSeconds)) x), "
                        + "CPU \(f(r.cpuSeconds)) s (\(f(r.cpuSeconds / base.cpuSeconds)) x)"
                )
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// Decodes `path` `rounds` times with each threading, interleaved.
    public static func run(path: String, rounds: Int) throws -> Report {
        let probe = try MediaFileSource(path: path)
        guard let video = probe.streamDescription.video else {
            throw FFmpegError(message: "no video track", context: path)
        }
        var slices = 1
        while let frame = try probe.nextFrame() {
            guard frame.kind == .video else { continue }
            slices = (try? H264.nalUnits(avcc: frame.data).filter { (1...5).contains(H264.nalType($0)) }.count) ?? 1
            break
        }
        let chosen = DecoderThreading.choose(
            slicesPerPicture: slices,
            width: video.width,
            height: video.height,
            frameRate: video.frameRate,
            cores: ProcessInfo.processInfo.activeProcessorCount,
            encoders: 3
        )
        let variants: [DecoderThreading] = [.single, .slices(2), .frames(2)]
        var walls = variants.map { _ in [Double]() }
        var cpus = variants.map { _ in [Double]() }
        var frames = 0
        for _ in 0..<max(1, rounds) {
            for (i, threading) in variants.enumerated() {
                let (wall, cpu, n) = try decodeOnce(path: path, video: video, threading: threading)
                walls[i].append(wall)
                cpus[i].append(cpu)
                frames = n
            }
        }
        let rows = variants.indices.map {
            Row(threading: variants[$0], wallSeconds: median(walls[$0]), cpuSeconds: median(cpus[$0]))
        }
        return Report(source: path, frames: frames, rounds: max(1, rounds), chosen: chosen, rows: rows)
    }

    private static func decodeOnce(
        path: String,
        video: VideoParameters,
        threading: DecoderThreading
    ) throws -> (wall: Double, cpu: Double, frames: Int) {
        let source = try MediaFileSource(path: path)
        let decoder = try H264Decoder(avcC: video.decoderConfiguration, threading: threading)
        let cpu0 = cpuSeconds()
        let start = ContinuousClock.now
        var pictures = 0
        while let frame = try source.nextFrame() {
            guard frame.kind == .video else { continue }
            // As the live ladder does: an access unit the decoder rejects is skipped, not fatal.
            pictures += (try? decoder.decode(frame).count) ?? 0
        }
        pictures += try decoder.flush().count
        return ((ContinuousClock.now - start).secondsDouble, cpuSeconds() - cpu0, pictures)
    }

    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return s(usage.ru_utime) + s(usage.ru_stime)
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}
