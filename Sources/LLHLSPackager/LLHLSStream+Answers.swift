import HLSPlaylist
import MediaCore
import NIOCore
import Synchronization

/// One check of a request against what is published: its answer, or the instant it may wait until.
enum RequestAttempt {
    /// Answer now; `version` is the state version a ready playlist was rendered at (nil: not a shareable playlist).
    case answer(HLSResponse, version: UInt64?)
    /// Nothing to answer yet: wait for a change, at most until this instant.
    case wait(until: ContinuousClock.Instant)
}

extension LLHLSStream {
    /// Checks a media playlist request once (RFC 8216bis §6.2.5.2). `deadline` is the limit fixed at the first wait
    /// (nil before it); `expired` answers as if it had passed (a cancelled request, a parked one timing out).
    func attemptMediaPlaylist(
        rendition name: String,
        request: PlaylistRequest,
        started: ContinuousClock.Instant,
        deadline: ContinuousClock.Instant?,
        expired: Bool
    ) -> RequestAttempt {
        let td = targetDuration
        let blocking = request.isBlocking
        // Rendered once per change and shared by every viewer woken by it (PlaylistRenderCache).
        let (decision, body, version) = state.withLock { s -> (BlockDecision, ByteBuffer?, UInt64) in
            let rendition = s.pipelineName(served: name)
            // A shed rung is gone for players: 404 (below) makes hls.js switch level without retrying it.
            if s.isUnlisted(rendition) { return (.ready, nil, s.version) }
            let d = s.decide(named: rendition, request)
            guard d == .ready else { return (d, nil, s.version) }
            return (d, s.renderedMediaPlaylist(named: rendition, skip: request.skip), s.version)
        }
        switch decision {
        case .ready:
            guard let body else { return .answer(.error(404, "no \(name) rendition", maxAge: 1), version: nil) }
            // Blocking responses are immutable for their URL: cache long (6 × TD); others briefly.
            var response = HLSResponse(
                status: 200,
                contentType: HLSResponse.playlistType,
                maxAge: blocking ? 6 * td : max(1, td / 2),
                payload: body
            )
            // TD/2 rounds up to a whole second at TD 1: a browser keeping that copy sent Chromium's native player back
            // to a playlist a whole segment old, a stall per reload (glass 3.3–8.7 s instead of 2.2).
            response.sharedCachesOnly = !blocking && td / 2 < 1
            return .answer(response, version: version)
        case .badRequest(let why):
            // Short, not App. B.1's 4 × TD: a request too far ahead becomes valid within a part or two,
            // and a cached 400 would answer the viewers who ask for it in time.
            return .answer(.error(400, why, maxAge: 1), version: nil)
        case .wait(let hold):
            let limit = deadline ?? started + hold
            guard expired || ContinuousClock.now >= limit else { return .wait(until: limit) }
            // A young stream that is slow to fill its first segments still gets what it has.
            if !blocking,
                let text = state.withLock({ s in
                    let rendition = s.pipelineName(served: name)
                    return s.pipeline(named: rendition)?.rendition.lastPart == nil
                        ? nil : s.mediaPlaylist(named: rendition)?.render()
                })
            {
                let response = HLSResponse(
                    status: 200,
                    contentType: HLSResponse.playlistType,
                    maxAge: 1,
                    body: Array(text.utf8)
                )
                return .answer(response, version: nil)
            }
            // B6: answer before hls.js gives up (it aborts after max(3 × PT, 0.8 × TD)). Not cacheable: an
            // edge keeping it would fail every viewer who asks while the late part arrives.
            let why = "timed out waiting for \(request.msn.map(String.init) ?? "first segments")"
            return .answer(.error(503, why, maxAge: 0), version: nil)
        }
    }

    /// Checks a media request (`{epoch}/{rendition}/{file}`) once; a preload-hinted part waits until `deadline`.
    func attemptMedia(
        epoch: String,
        rendition name: String,
        file: String,
        deadline: ContinuousClock.Instant,
        expired: Bool
    ) -> RequestAttempt {
        let td = targetDuration
        let contentType = name == "audio" ? "audio/mp4" : "video/mp4"
        guard let fileName = MediaFileName(file) else {
            return .answer(.error(404, "unknown media \(file)", maxAge: 1), version: nil)
        }
        enum Lookup {
            case found(ByteBuffer, published: ContinuousClock.Instant?)
            case missing, ahead, pending
        }
        let lookup = state.withLock { s -> Lookup in
            guard s.epoch == epoch, let r = s.pipeline(named: s.pipelineName(served: name))?.rendition else {
                return .missing
            }
            switch fileName {
            case .initSection(let i):
                return r.initSections[i].map { .found(ByteBuffer(bytes: $0), published: nil) } ?? .missing
            case .segment(let msn):
                guard let seg = r.segments.first(where: { $0.msn == msn }), seg.complete, seg.gapDuration == nil
                else {
                    return .missing
                }
                return .found(seg.buffer, published: seg.published(part: nil))
            case .part(let msn, let idx):
                // Classic HLS lists no parts; answering for them would serve URIs no playlist names.
                guard s.config.lowLatency else { return .missing }
                if let seg = r.segments.first(where: { $0.msn == msn }), idx < seg.parts.count {
                    return .found(seg.parts[idx].buffer, published: seg.published(part: idx))
                }
                // PH1: the preload-hinted part blocks until complete; anything else is 404 (PH2).
                let hint = r.nextPartPosition
                if !s.isEnded && hint.msn == msn && hint.part == idx { return .pending }
                return !s.isEnded && (msn, idx) > hint ? .ahead : .missing
            }
        }
        switch lookup {
        case .found(let bytes, let published):
            var response = HLSResponse(
                status: 200,
                contentType: contentType,
                maxAge: 6 * td,
                immutable: true,
                payload: bytes
            )
            response.published = published
            return .answer(response, version: nil)
        case .missing:
            return .answer(.error(404, "no such media \(epoch)/\(name)/\(file)", maxAge: 1), version: nil)
        case .ahead:
            // This URI will exist in a moment: an edge must not keep the 404 for the viewers who ask in time.
            return .answer(.error(404, "\(epoch)/\(name)/\(file) is not published yet", maxAge: 0), version: nil)
        case .pending:
            guard expired || ContinuousClock.now >= deadline else { return .wait(until: deadline) }
            return .answer(.error(503, "part \(file) not ready", maxAge: 1), version: nil)
        }
    }
}
