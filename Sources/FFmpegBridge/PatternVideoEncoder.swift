import CFFmpeg
import MediaCore

/// Draws test pictures and encodes them with libx264, libx265 or SVT-AV1 through libavcodec, yielding samples
/// (4-byte length NAL units, or AV1 OBUs) at 90 kHz.
final class PatternVideoEncoder {
    private let context: CodecContext
    private let codec: Codec
    private let frame: Frame
    private let packet: Packet
    private let painter: PatternPainter
    private let fps: Int32
    private let frameLimit: Int64?
    private var nextIndex: Int64 = 0
    private var flushed = false
    /// Wall clock at which each picture (by pts) was drawn, for `HopStamps.capture` (and so the publishers' SEI).
    private var captureTimes: [Int64: WallTime] = [:]
    /// The decoder configuration record (avcC, hvcC or av1C) built from the encoder's global header.
    let decoderConfiguration: [UInt8]
    /// Encode the next picture as an IDR (a WebRTC receiver's PLI/FIR).
    var forceKeyframe = false

    init(_ config: TestPatternSource.Configuration) throws(FFmpegError) {
        fps = Int32(config.fps)
        codec = config.videoCodec
        frameLimit = config.duration.map { Int64(($0.secondsDouble * Double(config.fps)).rounded()) }
        context = try PatternEncoderSetup.open(
            config,
            timeBase: AVRational(num: 1, den: fps),
            frameRate: AVRational(num: fps, den: 1)
        )
        decoderConfiguration = try PatternEncoderSetup.decoderConfiguration(codec, extradata: context.extradata)

        frame = try Frame.yuv420p(width: config.width, height: config.height, label: "video")
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
        // libx264 (and libx265 with forced-idr) turn a forced I picture into an IDR; SVT-AV1 into a key frame.
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
            let data = PatternEncoderSetup.sample(codec, packet: packet.bytes)
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
