import CFFmpeg
import MediaCore

/// Decodes AVCC access units (4-byte NAL lengths) into pictures carrying pts and SEI `user_data_unregistered`.
public final class H264Decoder {
    private let context: DecoderContext
    private let frame: Frame
    private let nopts = swift_AV_NOPTS_VALUE()

    /// How this decoder was opened.
    public let threading: DecoderThreading

    /// Opens libavcodec's H.264 decoder with an AVCDecoderConfigurationRecord as extradata.
    public init(avcC: [UInt8], threading: DecoderThreading = .single) throws(FFmpegError) {
        self.threading = threading
        context = try DecoderContext(
            codecID: AV_CODEC_ID_H264,
            extradata: avcC,
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
