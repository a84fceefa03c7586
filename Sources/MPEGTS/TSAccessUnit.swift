import MediaCore

/// One PES packet's payload from an elementary stream, with its 90 kHz timestamps as sent (33-bit wrap not undone).
public struct TSAccessUnit: Sendable, Equatable {
    /// The elementary stream it came from.
    public var stream: TSElementaryStream
    /// Presentation time (90 kHz).
    public var pts: MediaTime
    /// Decode time (the PTS when the PES carries none).
    public var dts: MediaTime
    /// The PES payload: Annex B NAL units for H.264, ADTS frames for AAC.
    public var data: [UInt8]
    /// The packet before it on this PID was lost or the stream flagged a discontinuity.
    public var followsDiscontinuity: Bool

    /// Creates a unit.
    public init(
        stream: TSElementaryStream,
        pts: MediaTime,
        dts: MediaTime,
        data: [UInt8],
        followsDiscontinuity: Bool = false
    ) {
        self.stream = stream
        self.pts = pts
        self.dts = dts
        self.data = data
        self.followsDiscontinuity = followsDiscontinuity
    }
}
