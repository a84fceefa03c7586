import CodecFormats
import MediaCore

/// The publisher's side of the capture clock (DESIGN.md "Latency model"): a real-time source's release instant is its
/// capture time, written into each video frame as our SEI so it survives any protocol and the ladder.
public enum CaptureClock {
    /// `frame` stamped with `wall`: video gets the SEI and `stamps.capture`; audio passes unchanged.
    /// Throws when a video frame is not 4-byte AVCC (there is nowhere to put the SEI).
    public static func stamp(_ frame: MediaFrame, at wall: WallTime) throws(CodecFormatError) -> MediaFrame {
        guard frame.kind == .video else { return frame }
        var stamped = frame
        stamped.data = try CaptureTimeSEI.inserting(capture: wall, intoAVCC: frame.data)
        stamped.stamps.capture = wall
        return stamped
    }
}
