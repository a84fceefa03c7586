/// Chromium's native HLS player (`<video src=…m3u8>`, no LL-HLS) on a young playlist.
///
/// It loads with the pipeline paused and fetches every listed segment; when play begins with nothing left to fetch,
/// it reloads the playlist at once and gives up (`DEMUXER_ERROR_COULD_NOT_PARSE`) unless a segment newer than any it
/// has seen is listed by then (Chromium 156 `media/filters/hls_rendition_impl.cc`, `CheckState` after a live pause).
/// A playlist shorter than HOLD-BACK has no such segment that soon, so while the rendition is that young a plain
/// request from a media element is held until the segment after the last complete one closes: every answer it gets
/// lists a segment it has not seen. Scripts (hls.js) are never held: their first load decides their first frame.
extension LLHLSStreamState {
    /// `request` with the segment it waits for fixed, when it is a media element's plain load of a young rendition.
    func pinningYoungHold(_ request: PlaylistRequest, rendition name: String) -> PlaylistRequest {
        guard request.fromMediaElement, request.msn == nil, request.heldUntilSegment == nil, !isEnded,
            let p = pipeline(named: pipelineName(served: name)), p.hasFirstMedia, isYoung(p.rendition)
        else { return request }
        var held = request
        held.heldUntilSegment = (p.rendition.lastCompleteMSN ?? (PublishedRendition.firstMSN - 1)) + 1
        return held
    }

    /// True while the complete segments listed last less than HOLD-BACK (3 × TARGETDURATION, RFC 8216bis §4.4.3.8),
    /// where a player without parts starts.
    func isYoung(_ r: PublishedRendition) -> Bool {
        let listed = r.segments.reduce(Int64(0)) { $0 + ($1.complete ? $1.parts.reduce(0) { $0 + $1.duration } : 0) }
        return listed < 3 * Int64(targetDuration) * Int64(r.timescale)
    }
}
