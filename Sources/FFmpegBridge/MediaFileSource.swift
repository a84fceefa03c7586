import CFFmpeg
import CodecFormats
import MediaCore

/// Demuxes an FLV or MP4 file holding H.264 (or, in MP4, HEVC/AV1) and/or AAC into frames (video at 90 kHz, audio at
/// its sample rate).
public final class MediaFileSource: MediaSource {
    /// The file being read.
    public let path: String
    public let streamDescription: StreamDescription
    private let format: InputFormatContext
    private let packet: Packet
    private let videoIndex: Int32?
    private let audioIndex: Int32?
    /// How packets of the video stream are framed in the file.
    private let videoIsAnnexB: Bool
    /// H.264 and HEVC packets are NAL units (rewritten to 4-byte lengths); AV1 packets are passed as they are.
    private let videoCodec: Codec
    private let videoLengthSize: Int
    private let audioRate: Int32
    private var interleaver: FrameInterleaver
    private var endOfFile = false

    /// Opens `path`; throws for a missing file, no H.264/AAC stream, or an unsupported codec.
    public init(path: String) throws(FFmpegError) {
        self.path = path
        format = try InputFormatContext(path: path)
        packet = try Packet()
        let v = format.bestStream(AVMEDIA_TYPE_VIDEO)
        let a = format.bestStream(AVMEDIA_TYPE_AUDIO)
        if let v, ![AV_CODEC_ID_H264, AV_CODEC_ID_HEVC, AV_CODEC_ID_AV1].contains(format.stream(v).codecID) {
            throw FFmpegError(
                message: "unsupported video codec \(format.stream(v).codecName) (H.264, HEVC or AV1)",
                context: "MediaFileSource(\(path))"
            )
        }
        if let a, format.stream(a).codecID != AV_CODEC_ID_AAC {
            throw FFmpegError(
                message: "unsupported audio codec \(format.stream(a).codecName) (only AAC)",
                context: "MediaFileSource(\(path))"
            )
        }
        guard v != nil || a != nil else {
            throw FFmpegError(message: "no H.264 or AAC stream", context: "MediaFileSource(\(path))")
        }
        videoIndex = v
        audioIndex = a

        var video: VideoParameters?
        var audio: AudioParameters?
        var annexB = false
        var lengthSize = 4
        var rate: Int32 = 48_000
        if let v, format.stream(v).codecID != AV_CODEC_ID_H264 {
            (video, lengthSize) = try Self.enhancedVideo(format.stream(v), path: path)
        } else if let v {
            let stream = format.stream(v)
            let extradata = stream.extradata
            annexB = extradata.isEmpty || H264Packaging.isAnnexB(extradata)
            let avcC = try H264Packaging.decoderConfiguration(fromExtradata: extradata)
            let fr = stream.pointee.avg_frame_rate
            do {
                lengthSize = try AVCDecoderConfigurationRecord(parsing: avcC).nalUnitLengthSize
                var params = try VideoParameters(
                    avcDecoderConfiguration: annexB ? avcC : Self.withFourByteLengths(avcC),
                    frameRate: fr.num > 0 && fr.den > 0 ? Double(fr.num) / Double(fr.den) : nil
                )
                if params.frameRate == nil, fr.num > 0, fr.den > 0 {
                    params.frameRate = Double(fr.num) / Double(fr.den)
                }
                video = params
            } catch {
                throw FFmpegError(message: "bad H.264 configuration: \(error)", context: "MediaFileSource(\(path))")
            }
        }
        if let a {
            let stream = format.stream(a)
            do {
                let params = try AudioParameters(audioSpecificConfig: stream.extradata)
                rate = Int32(params.sampleRate)
                audio = params
            } catch {
                throw FFmpegError(message: "bad AAC AudioSpecificConfig: \(error)", context: "MediaFileSource(\(path))")
            }
        }
        videoCodec = video?.codec ?? .h264
        videoIsAnnexB = annexB
        videoLengthSize = lengthSize
        audioRate = rate
        streamDescription = StreamDescription(video: video, audio: audio)
        var kinds: Set<MediaKind> = []
        if v != nil { kinds.insert(.video) }
        if a != nil { kinds.insert(.audio) }
        interleaver = FrameInterleaver(kinds: kinds)
    }

    /// The avcC with its length size forced to 4 bytes, since Sluice's frames always use 4-byte prefixes.
    private static func withFourByteLengths(_ avcC: [UInt8]) -> [UInt8] {
        guard avcC.count > 4 else { return avcC }
        var out = avcC
        out[4] |= 0x03
        return out
    }

    public func nextFrame() throws(FFmpegError) -> MediaFrame? {
        while true {
            if let frame = interleaver.pop() { return frame }
            if interleaver.isDone { return nil }
            try readOne()
        }
    }

    public func rewind() throws(FFmpegError) {
        try format.seekToStart()
        interleaver.reset()
        endOfFile = false
    }

    /// Demuxes one packet into the interleaver, or finishes every track at end of file.
    private func readOne() throws(FFmpegError) {
        guard !endOfFile, try format.read(into: packet) else {
            endOfFile = true
            interleaver.finish(.video)
            interleaver.finish(.audio)
            return
        }
        defer { packet.unref() }
        let p = packet.pointer.pointee
        let nopts = swift_AV_NOPTS_VALUE()
        let rawDTS = p.dts != nopts ? p.dts : p.pts
        let rawPTS = p.pts != nopts ? p.pts : rawDTS
        guard rawDTS != nopts else { return }
        let tb = format.stream(p.stream_index).pointee.time_base
        if p.stream_index == videoIndex {
            let dts = av_rescale_q(rawDTS, tb, AVRational(num: 1, den: 90_000))
            let pts = av_rescale_q(rawPTS, tb, AVRational(num: 1, den: 90_000))
            let bytes = packet.bytes
            let data =
                videoCodec == .av1
                ? bytes
                : videoIsAnnexB || H264Packaging.packetIsAnnexB(bytes, lengthSize: videoLengthSize)
                    ? H264Packaging.avcc(fromAnnexB: bytes)
                    : try H264Packaging.avcc(from: bytes, lengthSize: videoLengthSize)
            interleaver.push(
                MediaFrame(
                    kind: .video,
                    dts: MediaTime(value: dts, timescale: 90_000),
                    compositionOffset: MediaTime(value: pts - dts, timescale: 90_000),
                    isKeyframe: packet.isKeyframe,
                    data: data
                )
            )
        } else if p.stream_index == audioIndex {
            let dts = av_rescale_q(rawDTS, tb, AVRational(num: 1, den: audioRate))
            interleaver.push(
                MediaFrame(
                    kind: .audio,
                    dts: MediaTime(value: dts, timescale: audioRate),
                    isKeyframe: true,
                    data: packet.bytes
                )
            )
        }
    }
}
