import CFFmpeg
import CodecFormats
import MediaCore

/// The slate's media, encoded once per stream shape: the still picture (drawn, or `ingest.slate_image`) as one GOP of H.264 (an IDR, then pictures
/// that repeat it, which cost a few bytes each; HEVC or AV1 for such sources) and one frame of AAC silence that loops.
public enum SlateEncoding {
    /// One GOP of `frames` pictures of the slate at `width`×`height` (even), `frameRate` per second, in `codec`: the
    /// decoder configuration and the frames (AVCC, 90 kHz). Without SEI: x264's banner would tell a reader the slate is a
    /// stream of its own settings.
    public static func video(
        codec: Codec = .h264,
        width: Int,
        height: Int,
        frameRate: Double,
        frames: Int,
        image: SlateImage? = nil
    ) throws(FFmpegError) -> (VideoParameters, [MediaFrame]) {
        let zero = MediaTime.zero(timescale: 90_000)
        // Drawn (or decoded and scaled) once; every picture of the GOP references the same pixels.
        let still: DecodedPicture
        if let image {
            still = try image.picture(width: width, height: height, pts: zero)
        } else {
            still = try painted(width: width, height: height, pts: zero)
        }
        guard codec == .h264 else {
            return try enhancedVideo(codec, still: still, frameRate: frameRate, frames: frames)
        }
        let encoder = try LadderVideoEncoder(
            LadderVideoEncoder.Settings(
                width: width,
                height: height,
                bitRate: 400_000,
                frameRate: frameRate,
                preset: "veryfast",
                threads: 1
            )
        )
        let step = 90_000 / max(frameRate, 1)
        var out: [MediaFrame] = []
        for index in 0..<max(frames, 1) {
            let pts = MediaTime(value: Int64((Double(index) * step).rounded()), timescale: 90_000)
            out += try encoder.encode(try still.retimed(pts), forceIDR: index == 0)
        }
        out += try encoder.flush()
        return (encoder.videoParameters, out.map(withoutSEI))
    }

    /// One frame of AAC-LC silence at `sampleRate` with `channels`: its parameters and the frame (after the
    /// encoder's priming, so every copy decodes to silence on its own).
    public static func silence(sampleRate: Int, channels: Int) throws(FFmpegError) -> (AudioParameters, MediaFrame) {
        let encoder = try AACFrameEncoder(sampleRate: sampleRate, channels: max(channels, 1), bitRate: 64_000)
        let parameters: AudioParameters
        do {
            parameters = try AudioParameters(audioSpecificConfig: encoder.audioSpecificConfig)
        } catch {
            throw FFmpegError(message: "AAC encoder produced an unreadable config: \(error)", context: "SlateEncoding")
        }
        var packets: [MediaFrame] = []
        for index in 0..<4 {
            for plane in try encoder.writablePlanes() { plane.update(repeating: 0, count: Int(encoder.frameSize)) }
            encoder.frame.pointer.pointee.pts = Int64(index) * Int64(encoder.frameSize)
            try encoder.context.send(encoder.frame)
            packets += try encoder.context.drain(into: encoder.packet) { p in
                MediaFrame(
                    kind: .audio,
                    dts: MediaTime(value: p.pointer.pointee.dts, timescale: Int32(sampleRate)),
                    isKeyframe: true,
                    data: p.bytes,
                    stamps: HopStamps()
                )
            }
        }
        guard let silent = packets.last else {
            throw FFmpegError(message: "AAC encoder gave no frame of silence", context: "SlateEncoding")
        }
        return (parameters, silent)
    }

    /// The slate picture as a yuv420p frame.
    static func painted(width: Int, height: Int, pts: MediaTime) throws(FFmpegError) -> DecodedPicture {
        let frame = try Frame.yuv420p(width: width, height: height, label: "slate")
        let f = frame.pointer.pointee
        guard let y = f.data.0, let u = f.data.1, let v = f.data.2 else {
            throw FFmpegError(message: "frame without planes", context: "SlateEncoding.painted")
        }
        SlatePainter.paint(
            y: y,
            yStride: Int(f.linesize.0),
            u: u,
            v: v,
            chromaStride: Int(f.linesize.1),
            width: width,
            height: height
        )
        frame.pointer.pointee.pts = pts.value
        return DecodedPicture(frame: frame, pts: pts, userDataUnregistered: [])
    }

    /// `frame` without its SEI NAL units (type 6), AVCC with 4-byte lengths.
    static func withoutSEI(_ frame: MediaFrame) -> MediaFrame {
        var out = frame
        var kept: [UInt8] = []
        var offset = 0
        let data = frame.data
        while offset + 4 <= data.count {
            let length = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let end = offset + 4 + length
            guard length > 0, end <= data.count else { return frame }
            if data[offset + 4] & 0x1F != 6 { kept += data[offset..<end] }
            offset = end
        }
        out.data = kept
        return out
    }
}
