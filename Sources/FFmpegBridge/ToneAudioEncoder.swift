import CFFmpeg
import MediaCore

#if canImport(Glibc)
import Glibc
#endif

/// Generates a sine tone and encodes it with FFmpeg's native AAC encoder (fltp, 1024-sample frames).
final class ToneAudioEncoder {
    private let encoder: AACFrameEncoder
    private let sampleRate: Int32
    private let frequency: Double
    private let sampleLimit: Int64?
    private var nextSample: Int64 = 0
    private var flushed = false
    private var captureTimes: [Int64: WallTime] = [:]
    /// The encoder's AudioSpecificConfig.
    let audioSpecificConfig: [UInt8]
    /// Samples per coded frame.
    let frameSize: Int32

    init(_ config: TestPatternSource.Configuration) throws(FFmpegError) {
        sampleRate = Int32(config.audioSampleRate)
        frequency = config.toneFrequency
        sampleLimit = config.duration.map { Int64(($0.secondsDouble * Double(config.audioSampleRate)).rounded()) }
        encoder = try AACFrameEncoder(sampleRate: config.audioSampleRate, channels: 2, bitRate: config.audioBitRate)
        audioSpecificConfig = encoder.audioSpecificConfig
        frameSize = encoder.frameSize
    }

    deinit {
        // Draining first keeps libav from warning about frames left in the AAC queue when a live source stops.
        if !flushed, (try? encoder.context.send(nil)) != nil { _ = try? drain() }
    }

    /// True once the encoder has been flushed and fully drained.
    private(set) var isFinished = false

    /// Generates and encodes one frame of tone (or flushes at the end); returns the packets that came out.
    func step() throws(FFmpegError) -> [MediaFrame] {
        if let sampleLimit, nextSample >= sampleLimit {
            if !flushed {
                try encoder.context.send(nil)
                flushed = true
            }
            let out = try drain()
            isFinished = true
            return out
        }
        let planes = try encoder.writablePlanes()
        let count = Int(frameSize)
        let step = 2 * Double.pi * frequency / Double(sampleRate)
        for i in 0..<count {
            let v = Float(0.25 * sin(step * Double(nextSample + Int64(i))))
            for plane in planes { plane[i] = v }
        }
        encoder.frame.pointer.pointee.pts = nextSample
        captureTimes[nextSample] = WallTime.now()
        nextSample += Int64(count)
        try encoder.context.send(encoder.frame)
        return try drain()
    }

    private func drain() throws(FFmpegError) -> [MediaFrame] {
        try encoder.context.drain(into: encoder.packet) { packet in
            let p = packet.pointer.pointee
            let dts = MediaTime(value: p.dts, timescale: sampleRate)
            // The priming packet (negative pts) matches no generated frame; it is stamped when it comes out.
            let capture = captureTimes.removeValue(forKey: p.pts) ?? WallTime.now()
            return MediaFrame(
                kind: .audio,
                dts: dts,
                isKeyframe: true,
                data: packet.bytes,
                stamps: HopStamps(capture: capture)
            )
        }
    }
}
