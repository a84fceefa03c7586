import MediaCore

/// Fast start: a stream is served as soon as its first segment is complete in every rendition, so a viewer who opens
/// the page when the streamer goes live waits for one keyframe interval, not for HOLD-BACK worth of segments.
/// A young playlist is legal as it is: RFC 8216bis §6.2.2 bounds only removal (never below 3 × TD), and a client
/// that cannot start 3 × TD from the end starts at the first segment (§6.3.3).
extension LLHLSStreamState {
    /// Longest the multivariant waits for a rung's first segment after the source's (a rung that cannot start must
    /// not hold the stream back; it is then left out of the multivariant until it has media).
    static let rungStartLimit: Duration = .milliseconds(1_500)

    /// True when a rendition has something every player can start on: one complete segment. hls.js refuses a
    /// playlist without a whole segment (levelEmptyError, then a retry a second later), and padding a young
    /// playlist with EXT-X-GAP segments (gohlslib's way) left hls.js 1.6 stalled for good with its start position
    /// inside a gap (tried 2026-11-25), so the first segment is the earliest safe answer.
    func hasFirstMedia(_ name: String) -> Bool {
        pipeline(named: name)?.rendition.lastCompleteMSN != nil
    }

    /// About when the stream's leading rendition (source video, else audio) completed its first retained segment:
    /// when the part after it was listed.
    private var leadFirstCompleted: ContinuousClock.Instant? {
        guard let segments = (video ?? audio)?.rendition.segments,
            let i = segments.firstIndex(where: \.complete), i + 1 < segments.count
        else { return nil }
        return segments[i + 1].parts.first?.published
    }

    /// Renditions the multivariant lists now, or nil while it should still wait (checklist V1: every variant listed
    /// must be playable at once, so a rung without media is never advertised).
    func servedRenditions(now: ContinuousClock.Instant) -> [String]? {
        let lead = video == nil ? "audio" : "video"
        if isEnded { return listedRenditions }
        guard hasFirstMedia(lead), audio == nil || hasFirstMedia("audio") else { return nil }
        let listed = listedRenditions
        let started = listed.filter { hasFirstMedia($0) }
        if started.count == listed.count { return started }
        let waited = leadFirstCompleted.map { now - $0 >= Self.rungStartLimit } ?? false
        return waited ? started : nil
    }
}
