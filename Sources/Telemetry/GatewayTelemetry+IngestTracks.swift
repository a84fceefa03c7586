import MediaCore

/// A publisher's track that ingest received but does not serve (E-RTMP v2 multitrack: the first video track is the
/// stream), named by its track id and codec FourCC.
public struct IngestTrack: Sendable, Codable, Hashable {
    /// The E-RTMP videoTrackId (0-255).
    public var trackID: Int
    /// The track's FourCC, e.g. `hvc1`, `av01`, `avc1`.
    public var codec: String

    /// A track by id and codec.
    public init(trackID: Int, codec: String) {
        self.trackID = trackID
        self.codec = codec
    }
}

extension GatewayTelemetry {
    /// Replaces the video tracks `stream`'s publisher sends besides the one served (empty at each publish start).
    public func recordOtherVideoTracks(stream: StreamKey, _ tracks: [IngestTrack]) {
        withStream(stream) { $0.otherVideoTracks = tracks.sorted { $0.trackID < $1.trackID } }
    }
}
