import MediaCore

/// A media segment with the tags that precede its URI (RFC 8216bis §4.4.4, §4.4.4.9 placement rules).
public struct MediaSegment: Sendable, Equatable {
    /// Media sequence number.
    public var mediaSequence: Int
    /// Exact duration (the sum of its parts).
    public var duration: MediaTime
    /// URI relative to the playlist; nil while the segment is still open (only parts listed).
    public var uri: String?
    /// Its parts, in order; empty once they aged out of the part window.
    public var parts: [MediaPart]
    /// EXT-X-DISCONTINUITY before this segment.
    public var discontinuity: Bool
    /// EXT-X-PROGRAM-DATE-TIME of its first sample.
    public var programDateTime: WallTime?
    /// EXT-X-MAP URI to emit before this segment (first segment or init change).
    public var mapURI: String?
    /// EXT-X-GAP: the segment has no media; players skip it (RFC 8216bis §4.4.4.7).
    public var gap: Bool = false

    /// Creates a segment.
    public init(
        mediaSequence: Int,
        duration: MediaTime,
        uri: String?,
        parts: [MediaPart] = [],
        discontinuity: Bool = false,
        programDateTime: WallTime? = nil,
        mapURI: String? = nil,
        gap: Bool = false
    ) {
        self.gap = gap
        self.mediaSequence = mediaSequence
        self.duration = duration
        self.uri = uri
        self.parts = parts
        self.discontinuity = discontinuity
        self.programDateTime = programDateTime
        self.mapURI = mapURI
    }

    /// True once the segment is complete and listed with EXTINF.
    public var isComplete: Bool { uri != nil }
}
