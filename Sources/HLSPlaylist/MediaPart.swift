import MediaCore

/// EXT-X-PART (RFC 8216bis §4.4.4.9): one partial segment.
public struct MediaPart: Sendable, Equatable {
    /// Exact duration of the part's samples.
    public var duration: MediaTime
    /// URI relative to the playlist.
    public var uri: String
    /// True when the part starts with an independent (IDR) frame.
    public var independent: Bool
    /// True when the part is unavailable.
    public var gap: Bool

    /// Creates a part tag.
    public init(duration: MediaTime, uri: String, independent: Bool, gap: Bool = false) {
        self.duration = duration
        self.uri = uri
        self.independent = independent
        self.gap = gap
    }

    /// The tag line.
    public func render() -> String {
        var line = "#EXT-X-PART:DURATION=\(PlaylistDecimal.duration(duration)),URI=\(quoted(uri))"
        if independent { line += ",INDEPENDENT=YES" }
        if gap { line += ",GAP=YES" }
        return line
    }
}
