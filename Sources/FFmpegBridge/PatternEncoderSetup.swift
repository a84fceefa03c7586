import CFFmpeg
import CodecFormats
import MediaCore

/// The test pattern's encoder per codec, set as a streamer's OBS would: libx264 and libx265 in low-latency tunes
/// (B-frames on request), SVT-AV1 in its low-delay structure; the record and samples in Sluice's shapes.
enum PatternEncoderSetup {
    /// The libavcodec encoder for `codec`; nil for codecs the pattern does not encode.
    static func encoderName(_ codec: Codec) -> String? {
        switch codec {
        case .h264: "libx264"
        case .hevc: "libx265"
        case .av1: "libsvtav1"
        case .aac, .opus: nil
        }
    }

    /// Opens `config`'s video encoder for yuv420p pictures of its size on `timeBase` at `frameRate`, with its GOP,
    /// B-frames and bit rate, and the parameter sets in extradata (the decoder configuration record), not in front of
    /// every keyframe.
    static func open(
        _ config: TestPatternSource.Configuration,
        timeBase: AVRational,
        frameRate: AVRational
    ) throws(FFmpegError) -> CodecContext {
        guard let name = encoderName(config.videoCodec) else {
            throw FFmpegError(message: "\(config.videoCodec) is not a video codec", context: "PatternEncoderSetup")
        }
        let context = try CodecContext(encoderNamed: name)
        let c = context.pointer
        c.pointee.width = Int32(config.width)
        c.pointee.height = Int32(config.height)
        c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        c.pointee.time_base = timeBase
        c.pointee.framerate = frameRate
        c.pointee.gop_size = Int32(config.gopFrames)
        c.pointee.keyint_min = Int32(config.gopFrames)
        c.pointee.max_b_frames = Int32(config.bFrames)
        c.pointee.bit_rate = Int64(config.videoBitRate)
        c.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER)
        try configure(context, config)
        try context.open()
        return context
    }

    /// Sets the encoder's private options for `config` (after the shared size, rate and GOP fields).
    static func configure(_ context: CodecContext, _ config: TestPatternSource.Configuration) throws(FFmpegError) {
        let gop = config.gopFrames
        let b = config.bFrames
        switch config.videoCodec {
        case .hevc:
            try context.setOption("preset", "ultrafast")
            try context.setOption("tune", "zerolatency")
            // A forced I picture (a keyframe request) becomes an IDR, as libx264 does by default.
            try context.setOption("forced-idr", "1")
            // zerolatency forces bframes=0 and no lookahead; x265 wants a lookahead longer than a B run.
            var params = "keyint=\(gop):min-keyint=\(gop):scenecut=0:open-gop=0:info=0:log-level=error"
            if b > 0 { params += ":bframes=\(b):b-adapt=0:b-pyramid=0:rc-lookahead=\(b + 1)" }
            if config.constantBitRate {
                params += ":vbv-maxrate=\(config.videoBitRate / 1000):vbv-bufsize=\(config.videoBitRate / 1000)"
            }
            try context.setOption("x265-params", params)
        case .av1:
            guard b == 0 else {
                throw FFmpegError(message: "SVT-AV1's low-delay structure has no B-frames", context: "libsvtav1")
            }
            try context.setOption("preset", "12")
            // pred-struct 1 is low delay (no reordering); scd 0 keeps key frames on the GOP grid only.
            try context.setOption("svtav1-params", "scd=0:pred-struct=1")
        case .h264, .aac, .opus:
            try context.setOption("preset", "veryfast")
            try context.setOption("tune", "zerolatency")
            try context.setOption("sc_threshold", "0")
            if config.constantBitRate {
                context.pointer.pointee.rc_max_rate = Int64(config.videoBitRate)
                context.pointer.pointee.rc_buffer_size = Int32(clamping: config.videoBitRate)
                try context.setOption("nal-hrd", "cbr")
            }
            if b > 0 {
                // zerolatency forces bframes=0; x264-params is applied after the tune, and b-adapt=0 keeps them fixed.
                try context.setOption("x264-params", "bframes=\(b):b-adapt=0:b-pyramid=none")
            }
        }
    }

    /// The decoder configuration record (avcC, hvcC or av1C) from the opened encoder's global header.
    static func decoderConfiguration(_ codec: Codec, extradata: [UInt8]) throws(FFmpegError) -> [UInt8] {
        switch codec {
        case .hevc: try HEVCPackaging.decoderConfiguration(fromExtradata: extradata)
        case .av1: try AV1Packaging.codecConfiguration(fromExtradata: extradata)
        case .h264, .aac, .opus: try H264Packaging.decoderConfiguration(fromExtradata: extradata)
        }
    }

    /// The parameters of an encoder's decoder configuration record for `codec`.
    static func videoParameters(
        _ codec: Codec,
        record: [UInt8],
        frameRate: Double
    ) throws(CodecFormatError) -> VideoParameters {
        switch codec {
        case .hevc: try VideoParameters(hevcDecoderConfiguration: record, frameRate: frameRate)
        case .av1: try VideoParameters(av1CodecConfiguration: record, frameRate: frameRate)
        case .h264, .aac, .opus: try VideoParameters(avcDecoderConfiguration: record, frameRate: frameRate)
        }
    }

    /// One encoded packet as a sample: NAL units with 4-byte lengths, or AV1 OBUs without temporal delimiters.
    static func sample(_ codec: Codec, packet bytes: [UInt8]) -> [UInt8] {
        codec == .av1 ? AV1Packaging.sample(fromTemporalUnit: bytes) : H264.avcc(fromAnnexB: bytes)
    }
}
