import HLSPlaylist
import MediaCore
import NIOCore
import Synchronization

/// Whether a playlist request can be answered now (RFC 8216bis §6.2.5.2, checklist B1–B7).
enum BlockDecision: Equatable {
    case ready
    case wait(until: Duration)
    case badRequest(String)
}

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
        let lastComplete = r.lastCompleteMSN ?? (PublishedRendition.firstMSN - 1)
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
        let hold = 3 * pt + Double(max(0, ahead - 1)) * pt
        return .wait(until: .seconds(min(hold, 3 * Double(targetDuration))))
    }
}

extension LLHLSStream {
    /// Cache-Control max-age values from the checklist's "Recommended Cache-Control".
    var targetDuration: Int { state.withLock { $0.targetDuration } }

    /// The multivariant playlist; waits briefly for the publisher's track description.
    public func multivariantPlaylist(maxWait: Duration = .seconds(9)) async -> HLSResponse {
        let deadline = ContinuousClock.now + maxWait
        let td = targetDuration
        while true {
            let seen = signal.version
            let now = ContinuousClock.now
            if let text = state.withLock({ $0.multivariantPlaylist(now: now)?.render() }) {
                return HLSResponse(
                    status: 200,
                    contentType: HLSResponse.playlistType,
                    maxAge: max(1, td / 2),
                    body: Array(text.utf8)
                )
            }
            if ContinuousClock.now >= deadline || Task.isCancelled {
                return .error(503, "stream \(key) has not sent its tracks yet", maxAge: 1)
            }
            // Re-checked at least every 100 ms: the rung start limit passes without any publication to wake us.
            await signal.wait(after: seen, until: min(deadline, now + .milliseconds(100)))
        }
    }

    /// The source's video or audio media playlist.
    public func mediaPlaylist(_ kind: MediaKind, request: PlaylistRequest) async -> HLSResponse {
        await mediaPlaylist(rendition: kind.rawValue, request: request)
    }

    /// Whether players can ask for a rendition of this name (`video`, `audio`, or a ladder rung; a bridged rung is
    /// only `video`).
    public func hasRendition(_ name: String) -> Bool {
        state.withLock { $0.pipeline(named: name) != nil && ($0.rungs[name] == nil || $0.bridgedRung != name) }
    }

    /// `LLHLSStreamState.pinningStartupHold`, taking the lock only for a request it may hold (scripts' loads and
    /// blocking reloads, the hot path, skip it).
    func pinningStartupHold(_ request: PlaylistRequest, rendition name: String) -> PlaylistRequest {
        guard request.mayBeHeldAtStartup else { return request }
        return state.withLock { $0.pinningStartupHold(request, rendition: name) }
    }

    /// A media playlist by rendition name, honouring blocking reload and delta updates.
    public func mediaPlaylist(rendition name: String, request: PlaylistRequest) async -> HLSResponse {
        let request = pinningStartupHold(request, rendition: name)
        let start = ContinuousClock.now
        var deadline: ContinuousClock.Instant?
        while true {
            let seen = signal.version
            let attempt = attemptMediaPlaylist(
                rendition: name,
                request: request,
                started: start,
                deadline: deadline,
                expired: Task.isCancelled
            )
            switch attempt {
            case .answer(let response, _): return response
            case .wait(let limit):
                deadline = limit
                await signal.wait(after: seen, until: limit)
            }
        }
    }

    /// An init section, part or segment of the source's video or audio.
    public func media(epoch: String, kind: MediaKind, file: String) async -> HLSResponse {
        await media(epoch: epoch, rendition: kind.rawValue, file: file)
    }

    /// An init section, part or segment by its URI components (`{epoch}/{rendition}/{file}`).
    public func media(epoch: String, rendition name: String, file: String) async -> HLSResponse {
        let deadline = ContinuousClock.now + .seconds(3 * targetDuration)
        while true {
            let seen = signal.version
            switch attemptMedia(
                epoch: epoch,
                rendition: name,
                file: file,
                deadline: deadline,
                expired: Task.isCancelled
            )
            {
            case .answer(let response, _): return response
            case .wait(let limit): await signal.wait(after: seen, until: limit)
            }
        }
    }
}

/// Media file names inside `{epoch}/{rendition}/`: `init-N.mp4`, `MSN.m4s`, `MSN.PART.m4s`.
enum MediaFileName: Equatable {
    case initSection(Int)
    case segment(Int)
    case part(Int, Int)

    init?(_ file: String) {
        if file.hasPrefix("init-"), file.hasSuffix(".mp4"), let i = Int(file.dropFirst(5).dropLast(4)), i >= 0 {
            self = .initSection(i)
            return
        }
        guard file.hasSuffix(".m4s") else { return nil }
        let stem = file.dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
        switch stem.count {
        case 1:
            guard let m = Int(stem[0]), m >= 0 else { return nil }
            self = .segment(m)
        case 2:
            guard let m = Int(stem[0]), let p = Int(stem[1]), m >= 0, p >= 0 else { return nil }
            self = .part(m, p)
        default:
            return nil
        }
    }
}
