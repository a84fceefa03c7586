import CFFmpeg
import MediaCore

#if canImport(Glibc)
import Glibc
#endif

/// Generates a sine tone and encodes it with FFmpeg's native AAC encoder (fltp, 1024-sample frames).
final class ToneAudioEncoder {
    private let context: CodecContext
    private let frame: Frame
    private let packet: Packet
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
        context = try CodecContext(encoderNamed: "aac")
        let c = context.pointer
        c.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        c.pointee.sample_rate = sampleRate
        c.pointee.bit_rate = Int64(config.audioBitRate)
        c.pointee.time_base = AVRational(num: 1, den: sampleRate)
        av_channel_layout_default(&c.pointee.ch_layout, 2)
        c.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER)
        try context.open()
        audioSpecificConfig = context.extradata
        frameSize = c.pointee.frame_size > 0 ? c.pointee.frame_size : 1024

        frame = try Frame()
        frame.pointer.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointer.pointee.sample_rate = sampleRate
        frame.pointer.pointee.nb_samples = frameSize
        try check(
            av_channel_layout_copy(&frame.pointer.pointee.ch_layout, &c.pointee.ch_layout),
            "av_channel_layout_copy"
        )
        try check(av_frame_get_buffer(frame.pointer, 0), "av_frame_get_buffer(audio)")
        packet = try Packet()
    }

    deinit {
        // Draining first keeps libav from warning about frames left in the AAC queue when a live source stops.
        if !flushed, (try? context.send(nil)) != nil { _ = try? drain() }
    }

    /// True once the encoder has been flushed and fully drained.
    private(set) var isFinished = false

    /// Generates and encodes one frame of tone (or flushes at the end); returns the packets that came out.
    func step() throws(FFmpegError) -> [MediaFrame] {
        if let sampleLimit, nextSample >= sampleLimit {
            if !flushed {
                try context.send(nil)
                flushed = true
            }
            let out = try drain()
            isFinished = true
            return out
        }
        try check(av_frame_make_writable(frame.pointer), "av_frame_make_writable(audio)")
        let count = Int(frameSize)
        let step = 2 * Double.pi * frequency / Double(sampleRate)
        let left = UnsafeMutableRawPointer(frame.pointer.pointee.data.0!).assumingMemoryBound(to: Float.self)
        let right = UnsafeMutableRawPointer(frame.pointer.pointee.data.1!).assumingMemoryBound(to: Float.self)
        for i in 0..<count {
            let v = Float(0.25 * sin(step * Double(nextSample + Int64(i))))
            left[i] = v
            right[i] = v
        }
        frame.pointer.pointee.pts = nextSample
        captureTimes[nextSample] = WallTime.now()
        nextSample += Int64(count)
        try context.send(frame)
        return try drain()
    }

    private func drain() throws(FFmpegError) -> [MediaFrame] {
        try context.drain(into: packet) { packet in
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
