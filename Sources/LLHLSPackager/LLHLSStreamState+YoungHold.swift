/// Chromium's native HLS player (`<video src=…m3u8>`, no LL-HLS) and its plain reloads.
///
/// It counts the time before playback starts as a live pause: when play begins with no segment left to fetch, it drops
/// what it buffered, reloads the playlist once, and gives up (`DEMUXER_ERROR_COULD_NOT_PARSE`) unless that reload
/// lists a segment newer than any it has seen (Chromium `media/filters/hls_rendition_impl.cc`: `CheckState`,
/// `ResumeLivePlayback`, `ManifestUpdateForLiveResume`). With 1–2 segments listed its queue is always empty by then,
/// so a page opened 1–2.5 s after publish failed, with or without the early first segment. So a media element's plain
/// reload that would list nothing new to it is held until the next segment closes, whatever the playlist's age (a
/// blocking reload for players that send no `_HLS_msn`). Its first load is answered at once, and scripts (hls.js) are
/// never held. Chromium waits on the held reload without a timeout (its engine loop pauses until it returns).
extension LLHLSStreamState {
    /// Most clients remembered while streams are young; past it they are forgotten (their reloads answered at once).
    static let youngLoadLimit = 4_096

    /// `request` with the segment it waits for fixed, when it is a media element's plain reload of a young rendition
    /// that would list no segment newer than its last answer; notes what each such load is answered with.
    mutating func pinningYoungHold(_ request: PlaylistRequest, rendition name: String) -> PlaylistRequest {
        guard request.mayBeHeldYoung, !isEnded else { return request }
        let rendition = pipelineName(served: name)
        let key = "\(request.client ?? "")|\(rendition)"
        guard let p = pipeline(named: rendition) else { return request }
        // A load before the first segment is answered with it (`decide`).
        let listed = max(p.rendition.lastCompleteMSN ?? 0, PublishedRendition.firstMSN)
        guard let seen = youngLoads[key], seen >= listed else {
            if youngLoads.count >= Self.youngLoadLimit { youngLoads.removeAll() }
            youngLoads[key] = listed
            return request
        }
        var held = request
        held.heldUntilSegment = seen + 1
        youngLoads[key] = seen + 1
        return held
    }
}
