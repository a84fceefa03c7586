/// Chromium's native HLS player (`<video src=…m3u8>`, no LL-HLS) on a young playlist.
///
/// It loads with the pipeline paused and fetches every listed segment; when play begins with nothing left to fetch,
/// it reloads the playlist at once, seeks past what it loaded, and gives up (`DEMUXER_ERROR_COULD_NOT_PARSE`) unless a
/// segment newer than any it has seen is listed by then (Chromium 156 `media/filters/hls_rendition_impl.cc`,
/// `CheckState` after a live pause). With a whole TARGETDURATION listed it copes (it waits for its next reload; no
/// error in any run with 1 s first segments), with the 0.4 s early first segment it failed in every run. So while a
/// rendition lists less than one TARGETDURATION, a media element's plain reload that would list nothing new to it is
/// held until the next segment closes. Its first load is answered at once (its first frame waits for that reload
/// anyway), and scripts (hls.js) are never held. Holding longer, up to HOLD-BACK, cost it 5 s of glass-to-glass
/// latency with 1 s first segments (7.1 s against 2.2 s).
extension LLHLSStreamState {
    /// Most clients remembered while streams are young; past it they are forgotten (their reloads answered at once).
    static let youngLoadLimit = 4_096

    /// `request` with the segment it waits for fixed, when it is a media element's plain reload of a young rendition
    /// that would list no segment newer than its last answer; notes what each such load is answered with.
    mutating func pinningYoungHold(_ request: PlaylistRequest, rendition name: String) -> PlaylistRequest {
        guard request.mayBeHeldYoung, !isEnded else { return request }
        let rendition = pipelineName(served: name)
        let key = "\(request.client ?? "")|\(rendition)"
        guard let p = pipeline(named: rendition), isYoung(p.rendition) else {
            youngLoads[key] = nil
            return request
        }
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

    /// True while the complete segments listed last less than one TARGETDURATION (an early first segment).
    func isYoung(_ r: PublishedRendition) -> Bool {
        let listed = r.segments.filter(\.complete).reduce(Int64(0)) { $0 + $1.duration }
        return listed < Int64(targetDuration) * Int64(r.timescale)
    }
}
