/// Which renditions the multivariant lists (and rendition reports name), and when: one small value so every rule
/// about listing a rendition or leaving it out lives here.
///
/// Fast start: a stream is served as soon as its first segment is complete in every rendition, so a viewer who opens
/// the page when the streamer goes live waits for one keyframe interval, not for HOLD-BACK worth of segments.
/// A young playlist is legal as it is: RFC 8216bis §6.2.2 bounds only removal (never below 3 × TD), and a client
/// that cannot start 3 × TD from the end starts at the first segment (§6.3.3).
struct RenditionListing: Sendable, Equatable {
    /// Longest the multivariant waits for a rung's first segment after the source's (a rung that cannot start must
    /// not hold the stream back; it is then left out of the multivariant until it has media).
    static let rungStartLimit: Duration = .milliseconds(1_500)

    /// Every rendition, in playlist order (`video`, the rungs, `audio`).
    var renditions: [String]
    /// The rendition the stream starts with: the source's `video`, else `audio`.
    var lead: String
    /// Renditions with one complete segment: something every player can start on. hls.js refuses a playlist without
    /// a whole segment (levelEmptyError, then a retry a second later), and a gap does not stand in for one: hls.js
    /// 1.6 never loads an EXT-X-GAP segment and loads parts only once its position is a part and the open segment
    /// past the first listed part (`shouldLoadParts`), so behind a 1 ms gap it still waited for the first whole
    /// segment, and behind whole-segment gaps it stalled for good (tried 2026-11-25 and 2026-11-26).
    var started: Set<String>
    /// A rung transcoded at the source's size replaces the passthrough `video` (its segments cannot start on the
    /// source's rare keyframes, see +Listing).
    var sourceReplaced: Bool
    /// When the lead completed its first retained segment (its last part was listed).
    var leadFirstCompleted: ContinuousClock.Instant?
    /// ENDLIST is out: everything listed is served as it is.
    var ended: Bool
    /// Rungs shed under load, or back but without a new part yet: out of the multivariant and the reports (+Shedding).
    var withdrawn: Set<String> = []
    /// The source's GOP proved long beside a running ladder, whose rung at the source's size is on its way to replace
    /// `video`: the first multivariant waits for it rather than list the passthrough about to go (CI, 2026-11-29).
    var replacementDue = false

    /// Renditions the multivariant lists once all have media.
    var listed: [String] { renditions.filter { !(sourceReplaced && $0 == "video") && !withdrawn.contains($0) } }

    /// Renditions the multivariant lists at `now`, or nil while it should still wait (checklist V1: every variant
    /// listed must be playable at once, so a rung without media is never advertised).
    func served(now: ContinuousClock.Instant) -> [String]? {
        if ended { return listed }
        let hasAudio = renditions.contains("audio")
        guard started.contains(lead), !hasAudio || started.contains("audio") else { return nil }
        let waited = leadFirstCompleted.map { now - $0 >= Self.rungStartLimit } ?? false
        if replacementDue, !waited { return nil }
        let ready = listed.filter(started.contains)
        if ready.count == listed.count { return ready }
        return waited ? ready : nil
    }

    /// Renditions listed but not served at `now` (left out after the start limit).
    func leftOut(now: ContinuousClock.Instant) -> [String] {
        guard let served = served(now: now) else { return [] }
        return listed.filter { !served.contains($0) }
    }
}
