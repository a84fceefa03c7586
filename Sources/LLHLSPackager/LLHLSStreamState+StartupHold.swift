/// Chromium's native HLS player (`<video src=…m3u8>`, no LL-HLS) and its plain reloads.
///
/// It counts the time before playback starts as a live pause: when play begins with no segment left to fetch, it drops
/// what it buffered, reloads the playlist once, and gives up (`DEMUXER_ERROR_COULD_NOT_PARSE`) unless that reload
/// lists a segment newer than any it has seen (Chromium `media/filters/hls_rendition_impl.cc`: `CheckState`,
/// `ResumeLivePlayback`, `ManifestUpdateForLiveResume`). With 1–2 segments listed its queue is always empty by then,
/// so a page opened 1–2.5 s after publish failed, with or without the early first segment. So during a client's
/// start-up (`startupWindow` after its first load of the rendition) a media element's plain reload that would list
/// nothing new to it is held until the next segment closes: a blocking reload for a player that sends no `_HLS_msn`.
/// Its first load is answered at once, and scripts (hls.js) are never held. Past the start-up its reloads are
/// answered at once again: Chromium reloads audio and video one after the other on one loop, so holding every reload
/// made each wait for alternate segment boundaries and cost it 2.4 s of glass-to-glass latency (5.5 s against 3.1 s).
extension LLHLSStreamState {
    /// Most clients remembered; past it they are forgotten (their next load counts as a first load).
    static let startupLoadLimit = 4_096

    /// How long after a client's first load its reloads may be held: Chromium starts playing within it.
    var startupWindow: Duration { .seconds(3 * targetDuration) }

    /// `request` with the segment it waits for fixed, when it is a media element's plain reload, within its start-up,
    /// that would list no segment newer than its last answer; notes what each such load is answered with.
    mutating func pinningStartupHold(
        _ request: PlaylistRequest,
        rendition name: String,
        now: ContinuousClock.Instant = .now
    ) -> PlaylistRequest {
        guard request.mayBeHeldAtStartup, !isEnded else { return request }
        let rendition = pipelineName(served: name)
        let key = "\(request.client ?? "")|\(rendition)"
        guard let p = pipeline(named: rendition) else { return request }
        // A load before the first segment is answered with it (`decide`).
        let listed = max(p.rendition.lastCompleteMSN ?? 0, p.rendition.startMSN)
        guard let load = startupLoads[key], load.seen >= listed, now - load.first < startupWindow else {
            if startupLoads.count >= Self.startupLoadLimit { startupLoads.removeAll() }
            let known = startupLoads[key]
            startupLoads[key] = StartupLoad(seen: max(listed, known?.seen ?? 0), first: known?.first ?? now)
            return request
        }
        var held = request
        held.heldUntilSegment = load.seen + 1
        startupLoads[key]?.seen = load.seen + 1
        return held
    }
}

/// What a media element's start-up hold remembers of one client and rendition.
struct StartupLoad: Sendable, Equatable {
    /// The newest complete segment it was answered with (or is held for).
    var seen: Int
    /// Its first load.
    var first: ContinuousClock.Instant
}
