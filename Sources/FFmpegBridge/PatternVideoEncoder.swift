import CFFmpeg
import MediaCore

/// Draws test pictures and encodes them with libx264 through libavcodec, yielding AVCC frames at 90 kHz.
final class PatternVideoEncoder {
    private let context: CodecContext
    private let frame: Frame
    private let packet: Packet
    private let painter: PatternPainter
    private let fps: Int32
    private let frameLimit: Int64?
    private var nextIndex: Int64 = 0
    private var flushed = false
    /// Wall clock at which each picture (by pts) was drawn, for `HopStamps.capture` (and so the publishers' SEI).
    private var captureTimes: [Int64: WallTime] = [:]
    /// The AVCDecoderConfigurationRecord built from the encoder's global header.
    let decoderConfiguration: [UInt8]
    /// Encode the next picture as an IDR (a WebRTC receiver's PLI/FIR).
    var forceKeyframe = false

    init(_ config: TestPatternSource.Configuration) throws(FFmpegError) {
        fps = Int32(config.fps)
        frameLimit = config.duration.map { Int64(($0.secondsDouble * Double(config.fps)).rounded()) }
        context = try CodecContext(encoderNamed: "libx264")
        let c = context.pointer
        c.pointee.width = Int32(config.width)
        c.pointee.height = Int32(config.height)
        c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        c.pointee.time_base = AVRational(num: 1, den: fps)
        c.pointee.framerate = AVRational(num: fps, den: 1)
        c.pointee.gop_size = Int32(config.gopFrames)
        c.pointee.keyint_min = Int32(config.gopFrames)
        c.pointee.max_b_frames = Int32(config.bFrames)
        c.pointee.bit_rate = Int64(config.videoBitRate)
        // SPS/PPS go to extradata (the avcC), not in front of every keyframe.
        c.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER)
        try context.setOption("preset", "veryfast")
        try context.setOption("tune", "zerolatency")
        try context.setOption("sc_threshold", "0")
        if config.constantBitRate {
            c.pointee.rc_max_rate = Int64(config.videoBitRate)
            c.pointee.rc_buffer_size = Int32(clamping: config.videoBitRate)
            try context.setOption("nal-hrd", "cbr")
        }
        if config.bFrames > 0 {
            // zerolatency forces bframes=0; x264-params is applied after the tune, and b-adapt=0 keeps them fixed.
            try context.setOption("x264-params", "bframes=\(config.bFrames):b-adapt=0:b-pyramid=none")
        }
        try context.open()
        decoderConfiguration = try H264Packaging.decoderConfiguration(fromExtradata: context.extradata)

        frame = try Frame()
        frame.pointer.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointer.pointee.width = Int32(config.width)
        frame.pointer.pointee.height = Int32(config.height)
        try check(av_frame_get_buffer(frame.pointer, 0), "av_frame_get_buffer(video)")
        packet = try Packet()
        painter = PatternPainter(width: config.width, height: config.height)
    }

    /// True once the encoder has been flushed and fully drained.
    private(set) var isFinished = false

    /// Draws and encodes one picture (or flushes at the end); returns the packets that came out.
    func step() throws(FFmpegError) -> [MediaFrame] {
        if let frameLimit, nextIndex >= frameLimit {
            if !flushed {
                try context.send(nil)
                flushed = true
            }
            let out = try drain()
            isFinished = true
            return out
        }
        try check(av_frame_make_writable(frame.pointer), "av_frame_make_writable(video)")
        // The capture clock is taken as the picture is made, before encoding, and drawn into it as well.
        let made = WallTime.now()
        painter.paint(index: nextIndex, clock: made, into: frame.pointer)
        frame.pointer.pointee.pts = nextIndex
        // libx264 turns a forced I picture into an IDR (closed GOP).
        frame.pointer.pointee.pict_type = forceKeyframe ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        forceKeyframe = false
        captureTimes[nextIndex] = made
        nextIndex += 1
        try context.send(frame)
        return try drain()
    }

    private func drain() throws(FFmpegError) -> [MediaFrame] {
        try context.drain(into: packet) { packet in
            let p = packet.pointer.pointee
            let dts = MediaTime(value: p.dts, timescale: fps).converted(to: 90_000)
            let pts = MediaTime(value: p.pts, timescale: fps).converted(to: 90_000)
            let data = H264Packaging.avcc(fromAnnexB: packet.bytes)
            return MediaFrame(
                kind: .video,
                dts: dts,
                compositionOffset: pts - dts,
                isKeyframe: packet.isKeyframe,
                data: data,
                stamps: HopStamps(capture: captureTimes.removeValue(forKey: p.pts))
            )
        }
    }
}
