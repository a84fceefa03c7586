import MediaCore

/// One recording as `GET /api/recordings` lists it.
public struct RecordingSummary: Sendable, Equatable {
    /// The stream key and the recording's id (its directory: first sample's UTC time and the stream life's epoch).
    public var key: String
    public var id: String
    /// Wall clock of its first sample.
    public var started: WallTime
    /// Media recorded in the longest rendition, and bytes on disk over every rendition.
    public var duration: Duration
    public var bytes: Int
    /// False while the stream is still being written (its playlists are EVENT, not yet VOD).
    public var finished: Bool
}
