import CFFmpeg
import MediaCore

/// The H.264-only name the ladder bench and tests use; the decoder itself takes any source codec.
public typealias H264Decoder = VideoDecoder

/// Decodes source access units (H.264/HEVC with 4-byte NAL lengths, AV1 temporal units) into pictures carrying
/// pts and, for H.264, SEI `user_data_unregistered`.
public final class VideoDecoder {
    private let context: DecoderContext
    private let frame: Frame
    private let nopts = swift_AV_NOPTS_VALUE()

    /// How this decoder was opened.
    public let threading: DecoderThreading

    /// Opens libavcodec's H.264 decoder with an AVCDecoderConfigurationRecord as extradata.
    public convenience init(avcC: [UInt8], threading: DecoderThreading = .single) throws(FFmpegError) {
        try self.init(codec: .h264, configuration: avcC, threading: threading)
    }

    /// Opens the decoder for `video.codec` with its avcC / hvcC / av1C as extradata (libavcodec reads all three).
    public convenience init(video: VideoParameters, threading: DecoderThreading = .single) throws(FFmpegError) {
        try self.init(codec: video.codec, configuration: video.decoderConfiguration, threading: threading)
    }

    private init(codec: Codec, configuration: [UInt8], threading: DecoderThreading) throws(FFmpegError) {
        let codecID: AVCodecID
        switch codec {
        case .h264: codecID = AV_CODEC_ID_H264
        case .hevc: codecID = AV_CODEC_ID_HEVC
        // libavcodec registers libdav1d ahead of its native AV1 decoder (which needs a hardware accelerator).
        case .av1: codecID = AV_CODEC_ID_AV1
        case .aac, .opus: throw FFmpegError(message: "not a video codec", context: "VideoDecoder(\(codec))")
        }
        self.threading = threading
        context = try DecoderContext(
            codecID: codecID,
            extradata: configuration,
            packetTimeBase: AVRational(num: 1, den: 90_000)
        ) { ctx in
            switch threading {
            case .single:
                ctx.pointee.thread_type = FF_THREAD_SLICE
                ctx.pointee.thread_count = 1
            case .slices(let n):
                ctx.pointee.thread_type = FF_THREAD_SLICE
                ctx.pointee.thread_count = Int32(max(1, n))
            case .frames(let n):
                ctx.pointee.thread_type = FF_THREAD_FRAME
                ctx.pointee.thread_count = Int32(max(1, n))
            }
        }
        frame = try Frame()
    }

    /// Decodes one access unit; returns the pictures that became ready, in presentation order.
    public func decode(_ accessUnit: MediaFrame) throws(FFmpegError) -> [DecodedPicture] {
        let packet = try Packet.filled(
            with: accessUnit.data,
            pts: accessUnit.pts.converted(to: 90_000).value,
            dts: accessUnit.dts.converted(to: 90_000).value,
            isKeyframe: accessUnit.isKeyframe
        )
        try context.send(packet)
        return try drain()
    }

    /// Drains the pictures still held for reordering; the decoder is finished afterwards.
    public func flush() throws(FFmpegError) -> [DecodedPicture] {
        try context.send(nil)
        return try drain()
    }

    private func drain() throws(FFmpegError) -> [DecodedPicture] {
        var out: [DecodedPicture] = []
        while try context.receive(into: frame) {
            let f = frame.pointer.pointee
            let pts = f.pts != nopts ? f.pts : f.best_effort_timestamp
            let picture = try Frame()
            av_frame_move_ref(picture.pointer, frame.pointer)
            out.append(DecodedPicture(frame: picture, pts: MediaTime(value: pts == nopts ? 0 : pts, timescale: 90_000)))
        }
        return out
    }
}
