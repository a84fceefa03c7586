import CFFmpeg
import CodecFormats
import MediaCore

/// HEVC and AV1 video tracks of an MP4 (ISO/IEC 14496-15 §8.3.3 hvcC, AV1-ISOBMFF §2.3 av1C in the extradata): what
/// the bench publishes as E-RTMP.
extension MediaFileSource {
    /// The track's parameters and its NAL length size (4 for AV1, whose samples are OBUs).
    static func enhancedVideo(
        _ stream: UnsafeMutablePointer<AVStream>,
        path: String
    ) throws(FFmpegError) -> (VideoParameters, Int) {
        let extradata = stream.extradata
        let fr = stream.pointee.avg_frame_rate
        let frameRate = fr.num > 0 && fr.den > 0 ? Double(fr.num) / Double(fr.den) : nil
        do {
            if stream.codecID == AV_CODEC_ID_HEVC {
                // Annex B extradata (raw .hevc, MPEG-TS) has no hvcC to announce: MP4 or MKV only.
                let record = try HEVCDecoderConfigurationRecord(parsing: extradata)
                return (
                    try VideoParameters(hevcDecoderConfiguration: extradata, frameRate: frameRate),
                    record.nalUnitLengthSize
                )
            }
            return (try VideoParameters(av1CodecConfiguration: extradata, frameRate: frameRate), 4)
        } catch {
            throw FFmpegError(
                message: "bad \(stream.codecName) configuration (an MP4 with hvcC/av1C is needed): \(error)",
                context: "MediaFileSource(\(path))"
            )
        }
    }
}
