import CFFmpeg
import CodecFormats
import MediaCore

/// Encodes pictures of one ladder rung with libx264 for low latency: no B-frames, no lookahead, IDRs only on request.
public final class LadderVideoEncoder {
    /// The encoder's knobs; bit rates in bits per second.
    public struct Settings: Sendable, Hashable {
        /// Output width in pixels (even).
        public var width: Int
        /// Output height in pixels (even).
        public var height: Int
        /// Target average bit rate.
        public var bitRate: Int
        /// VBV peak rate; defaults to 1.1 × `bitRate`.
        public var maxRate: Int
        /// VBV buffer; defaults to one second at `bitRate`.
        public var bufferSize: Int
        /// Nominal frame rate (rate control budgets bits per frame with it).
        public var frameRate: Double
        /// x264 preset, e.g. `veryfast`.
        public var preset: String
        /// x264 threads; 0 lets x264 choose.
        public var threads: Int
        /// x264 `profile` (`baseline` makes constrained baseline for WebRTC receivers); nil lets x264 choose.
        public var profile: String? = nil
        /// H.264 level_idc (31 is 3.1); nil lets x264 choose.
        public var level: Int? = nil
        /// x264 `sps-id`: the id of its SPS and PPS, so they can share an avcC with another encoder's (nil: 0).
        public var parameterSetID: Int? = nil

        /// Settings for one rung.
        public init(
            width: Int,
            height: Int,
            bitRate: Int,
            maxRate: Int? = nil,
            bufferSize: Int? = nil,
            frameRate: Double = 30,
            preset: String = "veryfast",
            threads: Int = 0
        ) {
            self.width = width
            self.height = height
            self.bitRate = bitRate
            self.maxRate = maxRate ?? bitRate * 11 / 10
            self.bufferSize = bufferSize ?? bitRate
            self.frameRate = frameRate
            self.preset = preset
            self.threads = threads
        }
    }

    /// The settings this encoder was opened with.
    public let settings: Settings
    /// Parameters from the encoder's real SPS/PPS (its avcC), for the rung's stream description.
    public let videoParameters: VideoParameters
    private let context: CodecContext
    private let input: Frame
    private let packet: Packet

    /// Opens libx264; throws if the build lacks it or an option is rejected.
    public init(_ settings: Settings) throws(FFmpegError) {
        self.settings = settings
        context = try CodecContext(encoderNamed: "libx264")
        let c = context.pointer
        c.pointee.width = Int32(settings.width)
        c.pointee.height = Int32(settings.height)
        c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        c.pointee.time_base = AVRational(num: 1, den: 90_000)
        c.pointee.framerate = av_d2q(settings.frameRate > 0 ? settings.frameRate : 30, 1_001_000)
        c.pointee.max_b_frames = 0
        c.pointee.bit_rate = Int64(settings.bitRate)
        c.pointee.rc_max_rate = Int64(settings.maxRate)
        c.pointee.rc_buffer_size = Int32(clamping: settings.bufferSize)
        c.pointee.thread_count = Int32(settings.threads)
        // SPS/PPS go to extradata (the avcC), not in front of every keyframe.
        c.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER)
        try context.setOption("preset", settings.preset)
        if let profile = settings.profile { try context.setOption("profile", profile) }
        if let level = settings.level { c.pointee.level = Int32(level) }
        try context.setOption("tune", "zerolatency")
        try context.setOption("rc-lookahead", "0")
        try context.setOption("sc_threshold", "0")
        // A picture with pict_type I becomes an IDR, not a recovery-point I-frame.
        try context.setOption("forced-idr", "1")
        try context.setOption("udu_sei", "1")
        // keyint=infinite: the only IDRs are the forced ones (plus the very first picture).
        let id = settings.parameterSetID.map { ":sps-id=\($0)" } ?? ""
        try context.setOption("x264-params", "keyint=infinite:min-keyint=1:scenecut=0:bframes=0:open-gop=0\(id)")
        try context.open()
        let avcC = try H264Packaging.decoderConfiguration(fromExtradata: context.extradata)
        do {
            videoParameters = try VideoParameters(avcDecoderConfiguration: avcC, frameRate: settings.frameRate)
        } catch {
            throw FFmpegError(message: "encoder produced an unreadable avcC: \(error)", context: "LadderVideoEncoder")
        }
        input = try Frame()
        packet = try Packet()
    }

    /// Encodes one picture of exactly this encoder's size; `forceIDR` makes it an IDR. Returns AVCC frames at 90 kHz.
    public func encode(_ picture: DecodedPicture, forceIDR: Bool) throws(FFmpegError) -> [MediaFrame] {
        guard picture.width == settings.width, picture.height == settings.height else {
            throw FFmpegError(
                message:
                    "picture is \(picture.width)x\(picture.height), encoder expects \(settings.width)x\(settings.height)",
                context: "LadderVideoEncoder.encode"
            )
        }
        // Reference into our own frame so the shared picture stays untouched while we set the picture type.
        try check(av_frame_ref(input.pointer, picture.frame.pointer), "av_frame_ref")
        defer { av_frame_unref(input.pointer) }
        input.pointer.pointee.pts = picture.pts.converted(to: 90_000).value
        input.pointer.pointee.pict_type = forceIDR ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        try context.send(input)
        return try drain()
    }

    /// Flushes the encoder; it accepts no pictures afterwards.
    public func flush() throws(FFmpegError) -> [MediaFrame] {
        try context.send(nil)
        return try drain()
    }

    private func drain() throws(FFmpegError) -> [MediaFrame] {
        try context.drain(into: packet) { packet in
            let p = packet.pointer.pointee
            let dts = MediaTime(value: p.dts, timescale: 90_000)
            let pts = MediaTime(value: p.pts, timescale: 90_000)
            return MediaFrame(
                kind: .video,
                dts: dts,
                compositionOffset: pts - dts,
                isKeyframe: packet.isKeyframe,
                data: H264Packaging.avcc(fromAnnexB: packet.bytes)
            )
        }
    }
}
