import CFFmpeg
import MediaCore

/// FFmpeg's native AAC-LC encoder opened for planar float input, with the one input frame it is fed again and again:
/// the test pattern's tone and the slate's silence share this set-up, and `AACTranscoder` opens its encoder with it.
final class AACFrameEncoder {
    let context: CodecContext
    /// The input frame, reused: `frameSize` samples a channel, planar float.
    let frame: Frame
    let packet: Packet
    /// The encoder's AudioSpecificConfig.
    let audioSpecificConfig: [UInt8]
    /// Samples per coded frame.
    let frameSize: Int32

    /// Opens the encoder at `sampleRate` with `channels` (default layout) and `bitRate` bits per second.
    init(sampleRate: Int, channels: Int, bitRate: Int) throws(FFmpegError) {
        context = try Self.openContext(sampleRate: sampleRate, channels: channels, bitRate: bitRate)
        let c = context.pointer
        audioSpecificConfig = context.extradata
        frameSize = c.pointee.frame_size > 0 ? c.pointee.frame_size : 1024
        frame = try Frame()
        frame.pointer.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointer.pointee.sample_rate = Int32(sampleRate)
        frame.pointer.pointee.nb_samples = frameSize
        try check(
            av_channel_layout_copy(&frame.pointer.pointee.ch_layout, &c.pointee.ch_layout),
            "av_channel_layout_copy"
        )
        try check(av_frame_get_buffer(frame.pointer, 0), "av_frame_get_buffer(aac)")
        packet = try Packet()
    }

    /// The encoder alone, opened: planar float at `sampleRate`, `channels` (default layout), `bitRate` bits per
    /// second, global header (the AudioSpecificConfig in its extradata), and `profile` when given (`FF_PROFILE_AAC_*`).
    static func openContext(
        sampleRate: Int,
        channels: Int,
        bitRate: Int,
        profile: Int32? = nil
    ) throws(FFmpegError) -> CodecContext {
        let context = try CodecContext(encoderNamed: "aac")
        let c = context.pointer
        c.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        c.pointee.sample_rate = Int32(sampleRate)
        c.pointee.bit_rate = Int64(bitRate)
        c.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
        if let profile { c.pointee.profile = profile }
        av_channel_layout_default(&c.pointee.ch_layout, Int32(channels))
        c.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER)
        try context.open()
        return context
    }

    /// The input frame's channel planes, made writable (the encoder may still hold the last frame's buffers).
    func writablePlanes() throws(FFmpegError) -> [UnsafeMutablePointer<Float>] {
        try check(av_frame_make_writable(frame.pointer), "av_frame_make_writable(aac)")
        let f = frame.pointer.pointee
        return (0..<Int(f.ch_layout.nb_channels)).compactMap { plane in
            f.extended_data[plane].map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: Float.self) }
        }
    }
}
