import MediaCore

/// The capture clock in a video frame of any codec Sluice carries: the SEI for H.264 (AVCC) and HEVC (4-byte lengths),
/// the T.35 metadata OBU for AV1 (DESIGN.md "Latency model").
public enum CaptureStamp {
    /// The capture time in `data`, a frame of `codec`; nil if it carries none.
    public static func read(_ data: [UInt8], codec: Codec) -> WallTime? {
        switch codec {
        case .h264: CaptureTimeSEI.captureTime(inAVCC: data)
        case .hevc: CaptureTimeSEI.captureTime(inHEVC: data)
        case .av1: CaptureTimeOBU.captureTime(inTemporalUnit: data)
        case .aac, .opus: nil
        }
    }

    /// `data` with the capture time written in, replacing any earlier one; audio codecs pass unchanged.
    public static func inserting(
        _ capture: WallTime,
        into data: [UInt8],
        codec: Codec
    ) throws(CodecFormatError)
        -> [UInt8]
    {
        switch codec {
        case .h264: try CaptureTimeSEI.inserting(capture: capture, intoAVCC: data)
        case .hevc: try CaptureTimeSEI.inserting(capture: capture, intoHEVC: data)
        case .av1: try CaptureTimeOBU.inserting(capture: capture, intoTemporalUnit: data)
        case .aac, .opus: data
        }
    }
}
