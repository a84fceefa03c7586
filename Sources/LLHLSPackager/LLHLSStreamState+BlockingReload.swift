import MediaCore

/// Blocking reload: whether a playlist request is answered now, waits, or is refused.
extension LLHLSStreamState {
    /// Decides a playlist request against what is published; `wait` carries the longest sensible hold.
    func decide(_ kind: MediaKind, _ request: PlaylistRequest) -> BlockDecision {
        decide(named: kind.rawValue, request)
    }

    /// Decides a playlist request for a rendition by name.
    func decide(named name: String, _ request: PlaylistRequest) -> BlockDecision {
        guard let p = pipeline(named: name) else { return .badRequest("no such rendition") }
        // B7: once ENDLIST is out, directives are ignored.
        if isEnded { return .ready }
        let r = p.rendition
        let pt = partTarget.secondsDouble
        guard let m = request.msn else {
            // Fast start: a first load is answered once the rendition has a part to start on (`RenditionListing`).
            guard p.hasFirstMedia else { return .wait(until: .seconds(Double(targetDuration) * 4)) }
            if let held = request.heldUntilSegment, (r.lastCompleteMSN ?? 0) < held {
                return .wait(until: .seconds(3 * Double(targetDuration)))
            }
            return .ready
        }
        // Classic HLS advertises no CAN-BLOCK-RELOAD, so a delivery directive is a client error.
        if !config.lowLatency { return .badRequest("_HLS_msn: blocking reload is off (hls.low_latency: false)") }
        let lastComplete = r.lastCompleteMSN ?? (r.startMSN - 1)
        // B4: more than two segments ahead is a client error.
        if m > lastComplete + 2 {
            return .badRequest("_HLS_msn=\(m) is more than two segments past the last (\(lastComplete))")
        }
        let last = r.lastPart ?? (msn: -1, part: -1)
        guard let n = request.part else {
            // B1: _HLS_msn alone waits for a complete segment M.
            return lastComplete >= m ? .ready : .wait(until: .seconds(3 * Double(targetDuration)))
        }
        // B4: Advance Part Limit is 3 / PART-TARGET parts when PART-TARGET < 1 s.
        let limit = pt < 1 ? Int((3 / pt).rounded(.up)) : 3
        let ahead = m == last.msn ? n - last.part : (m > last.msn ? n + 1 : 0)
        if ahead > limit {
            return .badRequest("_HLS_part=\(n) is \(ahead) parts past the last published part (limit \(limit))")
        }
        // B2: part N of M, or anything later (a completed M with fewer parts reads as M+1.0).
        if last.msn > m || (last.msn == m && last.part >= n) { return .ready }
        // B6: held past hls.js's own abort (max(3 × PT, 0.8 × TD)), which it retries at once without directives; a
        // 503 before it costs hls.js a 1 s retry delay (seen as a 1.9 s stall when a stalled publisher met the slate).
        let hlsjsAbort = max(3 * pt, 0.8 * Double(targetDuration))
        let hold = hlsjsAbort + pt / 2 + Double(max(0, ahead - 1)) * pt
        return .wait(until: .seconds(min(hold, 3 * Double(targetDuration))))
    }
}
