import CodecFormats
import MediaCore

/// The publisher's side of the capture clock (DESIGN.md "Latency model"): a real-time source's release instant is its
/// capture time, written into each video frame (SEI for H.264/HEVC, a metadata OBU for AV1) so it survives any
/// protocol and the ladder.
public enum CaptureClock {
    /// `frame` stamped with `wall`: video of `codec` gets the clock in its bytes and `stamps.capture`; audio passes
    /// unchanged. Throws when a video frame cannot be walked (there is nowhere to put the clock).
    public static func stamp(
        _ frame: MediaFrame,
        at wall: WallTime,
        codec: Codec = .h264
    ) throws(CodecFormatError) -> MediaFrame {
        guard frame.kind == .video else { return frame }
        var stamped = frame
        stamped.data = try CaptureStamp.inserting(wall, into: frame.data, codec: codec)
        stamped.stamps.capture = wall
        return stamped
    }
}
