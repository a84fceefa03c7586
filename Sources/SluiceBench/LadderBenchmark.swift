import CodecFormats
import FFmpegBridge
import Foundation
import MediaCore
import Transcoder

/// What one offline ladder run over a file cost.
public struct LadderBenchmarkResult: Sendable {
    /// One rung's figures.
    public struct Rung: Sendable {
        /// Rung name, e.g. `480p`.
        public var name: String
        /// Output size.
        public var width: Int, height: Int
        /// Pictures encoded per second of that rung's own busy time (scale + encode).
        public var framesPerSecond: Double
    }

    /// Wall time of the whole ladder: demux, one decode, every rung.
    public var wallTime: Duration
    /// Source video frames decoded.
    public var frames: Int
    /// Per rung.
    public var rungs: [Rung]
}

/// Runs the ladder as fast as it can over a file (no hub, no pacing): the transcode-only bench.
public enum LadderBenchmark {
    /// Decodes `path` once and scales + encodes every planned rung in parallel, forcing IDRs at source keyframes.
    public static func run(path: String, configuration: LadderConfiguration) throws -> LadderBenchmarkResult {
        let source = try MediaFileSource(path: path)
        guard let video = source.streamDescription.video else {
            throw FFmpegError(message: "no video track", context: path)
        }
        let plan = LadderPlan.plan(source: video, rungs: configuration.rungs, maxRungs: configuration.maxRungs)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        // Threaded as the live ladder threads it: decoder by the first keyframe's slices, x264 by the rungs' pixels.
        var decoder: VideoDecoder?
        let workers = try plan.map { rung in
            BenchRung(
                rung: rung,
                scaler: PictureScaler(width: rung.width, height: rung.height),
                encoder: try LadderVideoEncoder(
                    .init(
                        width: rung.width,
                        height: rung.height,
                        bitRate: rung.videoBitRate.bitsPerSecond,
                        frameRate: video.frameRate ?? 30,
                        preset: configuration.preset,
                        threads: LadderPlan.encoderThreads(
                            for: rung,
                            in: plan,
                            cores: cores,
                            configured: configuration.encoderThreads
                        )
                    )
                )
            )
        }
        let clock = ContinuousClock()
        let start = clock.now
        var frames = 0
        var keyframePTS: Set<Int64> = []
        // Rungs encode picture N on their own queues while this thread demuxes and decodes picture N+1,
        // as the live ladder's decoder and rung threads overlap.
        let queues = workers.indices.map { DispatchQueue(label: "bench-rung-\($0)") }
        // Each rung may run a few pictures behind the decoder, like the live ladder's bounded rung queues.
        let slots = workers.map { _ in DispatchSemaphore(value: 8) }
        let inFlight = DispatchGroup()
        func encode(_ pictures: [DecodedPicture]) {
            for picture in pictures {
                let forceIDR = keyframePTS.remove(picture.pts.converted(to: 90_000).value) != nil
                for i in workers.indices {
                    slots[i].wait()
                    let (w, slot) = (workers[i], slots[i])
                    queues[i].async(group: inFlight) {
                        w.encode(picture, forceIDR: forceIDR)
                        slot.signal()
                    }
                }
            }
        }
        while let frame = try source.nextFrame() {
            guard frame.kind == .video else { continue }
            frames += 1
            if frame.isKeyframe { keyframePTS.insert(frame.pts.converted(to: 90_000).value) }
            // Slices are counted for H.264 only; an HEVC/AV1 source (E-RTMP) counts as one, as in the live ladder.
            let slices =
                decoder == nil && video.codec == .h264
                ? (try? H264.nalUnits(avcc: frame.data).filter { (1...5).contains(H264.nalType($0)) }.count) ?? 1 : 1
            let d =
                try decoder
                ?? VideoDecoder(
                    video: video,
                    threading: .choose(
                        slicesPerPicture: slices,
                        width: video.width,
                        height: video.height,
                        frameRate: video.frameRate,
                        cores: cores,
                        encoders: plan.count
                    )
                )
            decoder = d
            encode(try d.decode(frame))
        }
        if let decoder { encode(try decoder.flush()) }
        inFlight.wait()
        for w in workers { w.finish() }
        let wall = clock.now - start
        return LadderBenchmarkResult(
            wallTime: wall,
            frames: frames,
            rungs: workers.map {
                .init(
                    name: $0.rung.name,
                    width: $0.rung.width,
                    height: $0.rung.height,
                    framesPerSecond: Double($0.pictures) / max($0.busy.secondsDouble, 1e-9)
                )
            }
        )
    }
}

/// One rung of the bench: its scaler, encoder and busy time (touched by one thread at a time).
private final class BenchRung: @unchecked Sendable {
    let rung: PlannedRung
    let scaler: PictureScaler
    let encoder: LadderVideoEncoder
    var busy: Duration = .zero
    var pictures = 0

    init(rung: PlannedRung, scaler: PictureScaler, encoder: LadderVideoEncoder) {
        self.rung = rung
        self.scaler = scaler
        self.encoder = encoder
    }

    func encode(_ picture: DecodedPicture, forceIDR: Bool) {
        let clock = ContinuousClock()
        let t = clock.now
        _ = try? encoder.encode(try scaler.scale(picture), forceIDR: forceIDR)
        busy += clock.now - t
        pictures += 1
    }

    func finish() { _ = try? encoder.flush() }
}
