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
            return p.hasFirstMedia ? .ready : .wait(until: .seconds(Double(targetDuration) * 4))
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
    private var targetDuration: Int { state.withLock { $0.targetDuration } }

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

    /// Whether a rendition of this name exists (`video`, `audio`, or a ladder rung).
    public func hasRendition(_ name: String) -> Bool { state.withLock { $0.pipeline(named: name) != nil } }

    /// A media playlist by rendition name, honouring blocking reload and delta updates.
    public func mediaPlaylist(rendition name: String, request: PlaylistRequest) async -> HLSResponse {
        let start = ContinuousClock.now
        let td = targetDuration
        let blocking = request.isBlocking
        var deadline: ContinuousClock.Instant?
        while true {
            let seen = signal.version
            // Rendered once per change and shared by every viewer woken by it (PlaylistRenderCache).
            let (decision, body) = state.withLock { s -> (BlockDecision, ByteBuffer?) in
                // A shed rung is gone for players: 404 (below) makes hls.js switch level without retrying it.
                if s.isUnlisted(name) { return (.ready, nil) }
                let d = s.decide(named: name, request)
                guard d == .ready else { return (d, nil) }
                return (d, s.renderedMediaPlaylist(named: name, skip: request.skip))
            }
            switch decision {
            case .ready:
                guard let body else { return .error(404, "no \(name) rendition", maxAge: 1) }
                // Blocking responses are immutable for their URL: cache long (6 × TD); others briefly.
                return HLSResponse(
                    status: 200,
                    contentType: HLSResponse.playlistType,
                    maxAge: blocking ? 6 * td : max(1, td / 2),
                    payload: body
                )
            case .badRequest(let why):
                // Short, not App. B.1's 4 × TD: a request too far ahead becomes valid within a part or two,
                // and a cached 400 would answer the viewers who ask for it in time.
                return .error(400, why, maxAge: 1)
            case .wait(let hold):
                let limit = deadline ?? start + hold
                deadline = limit
                if ContinuousClock.now >= limit || Task.isCancelled {
                    // A young stream that is slow to fill its first segments still gets what it has.
                    if !blocking,
                        let text = state.withLock({ s in
                            s.pipeline(named: name)?.rendition.lastPart == nil
                                ? nil : s.mediaPlaylist(named: name)?.render()
                        })
                    {
                        return HLSResponse(
                            status: 200,
                            contentType: HLSResponse.playlistType,
                            maxAge: 1,
                            body: Array(text.utf8)
                        )
                    }
                    // B6: answer before hls.js gives up (it aborts after max(3 × PT, 0.8 × TD)). Not cacheable: an
                    // edge keeping it would fail every viewer who asks while the late part arrives.
                    return .error(
                        503,
                        "timed out waiting for \(request.msn.map(String.init) ?? "first segments")",
                        maxAge: 0
                    )
                }
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
        let td = targetDuration
        let contentType = name == "audio" ? "audio/mp4" : "video/mp4"
        guard let fileName = MediaFileName(file) else { return .error(404, "unknown media \(file)", maxAge: 1) }
        let deadline = ContinuousClock.now + .seconds(3 * td)
        while true {
            let seen = signal.version
            enum Lookup {
                case found(ByteBuffer)
                case missing, ahead, pending
            }
            let lookup = state.withLock { s -> Lookup in
                guard s.epoch == epoch, let r = s.pipeline(named: name)?.rendition else { return .missing }
                switch fileName {
                case .initSection(let i):
                    return r.initSections[i].map { .found(ByteBuffer(bytes: $0)) } ?? .missing
                case .segment(let msn):
                    guard let seg = r.segments.first(where: { $0.msn == msn }), seg.complete, seg.gapDuration == nil
                    else {
                        return .missing
                    }
                    return .found(seg.buffer)
                case .part(let msn, let idx):
                    // Classic HLS lists no parts; answering for them would serve URIs no playlist names.
                    guard s.config.lowLatency else { return .missing }
                    if let seg = r.segments.first(where: { $0.msn == msn }), idx < seg.parts.count {
                        return .found(seg.parts[idx].buffer)
                    }
                    // PH1: the preload-hinted part blocks until complete; anything else is 404 (PH2).
                    let hint = r.nextPartPosition
                    if !s.isEnded && hint.msn == msn && hint.part == idx { return .pending }
                    return !s.isEnded && (msn, idx) > hint ? .ahead : .missing
                }
            }
            switch lookup {
            case .found(let bytes):
                return HLSResponse(
                    status: 200,
                    contentType: contentType,
                    maxAge: 6 * td,
                    immutable: true,
                    payload: bytes
                )
            case .missing:
                return .error(404, "no such media \(epoch)/\(name)/\(file)", maxAge: 1)
            case .ahead:
                // This URI will exist in a moment: an edge must not keep the 404 for the viewers who ask in time.
                return .error(404, "\(epoch)/\(name)/\(file) is not published yet", maxAge: 0)
            case .pending:
                if ContinuousClock.now >= deadline || Task.isCancelled {
                    return .error(503, "part \(file) not ready", maxAge: 1)
                }
                await signal.wait(after: seen, until: deadline)
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
