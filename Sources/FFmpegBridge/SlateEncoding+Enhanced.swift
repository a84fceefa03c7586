import CFFmpeg
import CodecFormats
import MediaCore

/// The slate for HEVC and AV1 passthrough sources (Enhanced RTMP, ISO/IEC 14496-15 §8.3.3, AV1-ISOBMFF §2.3): the
/// still picture as one GOP of libx265 or SVT-AV1, set up as the test pattern's encoders (low delay, no B-frames).
extension SlateEncoding {
    /// One GOP of `frames` pictures of `still` in `codec`: the parameters of the decoder configuration record and the
    /// samples (NAL units with 4-byte lengths, or OBUs), 90 kHz.
    static func enhancedVideo(
        _ codec: Codec,
        still: DecodedPicture,
        frameRate: Double,
        frames: Int
    ) throws(FFmpegError) -> (VideoParameters, [MediaFrame]) {
        var setup = TestPatternSource.Configuration()
        setup.width = still.width
        setup.height = still.height
        setup.videoCodec = codec
        setup.gop = frames
        setup.videoBitRate = 400_000
        let context = try PatternEncoderSetup.open(
            setup,
            timeBase: AVRational(num: 1, den: 90_000),
            frameRate: av_d2q(frameRate > 0 ? frameRate : 30, 1_001_000)
        )
        let record = try PatternEncoderSetup.decoderConfiguration(codec, extradata: context.extradata)
        let parameters: VideoParameters
        do {
            parameters = try PatternEncoderSetup.videoParameters(codec, record: record, frameRate: frameRate)
        } catch {
            throw FFmpegError(message: "\(codec) slate has an unreadable record: \(error)", context: "SlateEncoding")
        }
        let input = try Frame()
        let packet = try Packet()
        func drain() throws(FFmpegError) -> [MediaFrame] {
            try context.drain(into: packet) { packet in
                let p = packet.pointer.pointee
                let dts = MediaTime(value: p.dts, timescale: 90_000)
                return MediaFrame(
                    kind: .video,
                    dts: dts,
                    compositionOffset: MediaTime(value: p.pts, timescale: 90_000) - dts,
                    isKeyframe: packet.isKeyframe,
                    data: PatternEncoderSetup.sample(codec, packet: packet.bytes)
                )
            }
        }
        let step = 90_000 / max(frameRate, 1)
        var out: [MediaFrame] = []
        for index in 0..<max(frames, 1) {
            try check(av_frame_ref(input.pointer, still.frame.pointer), "av_frame_ref(slate)")
            input.pointer.pointee.pts = Int64((Double(index) * step).rounded())
            input.pointer.pointee.pict_type = index == 0 ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
            defer { av_frame_unref(input.pointer) }
            try context.send(input)
            out += try drain()
        }
        try context.send(nil)
        out += try drain()
        return (parameters, out)
    }
}
