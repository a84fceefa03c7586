import MediaCore

/// Audio a session sent before its first video frame, dropped so that every rendition starts at that frame (a player
/// such as Chromium's native one refuses an audio playlist dated seconds before its video).
struct AudioBeforeVideo: Sendable, Equatable {
    /// Audio frames held while video is awaited (~10.9 s of 48 kHz AAC): covers an encoder's video lead, bounds memory.
    static let limit = 512
    /// Frames dropped so far, and the earliest one's decode time.
    private(set) var frames = 0
    private(set) var earliest: MediaTime?

    /// Counts `dropped` frames.
    mutating func drop(_ dropped: some Collection<MediaFrame>) {
        frames += dropped.count
        if let first = dropped.map(\.dts).min() { earliest = earliest.map { min($0, first) } ?? first }
    }
}
