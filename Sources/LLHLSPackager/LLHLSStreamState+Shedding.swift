/// Rungs the transcoder sheds under load. A shed rung leaves the multivariant and every rendition report at once, and
/// its media playlist answers 404 (its parts and segments stay fetchable): a player still on it gets a level-load error
/// that hls.js does not retry for a 4xx, so it switches level without a fatal error. A frozen playlist would instead
/// hold its blocking reloads until 503, which hls.js retries in a loop; GAP segments would need media never encoded.
/// A rung fed again returns from its next aligned IDR (the missed segments become EXT-X-GAP) and is listed again from
/// its first new part, so reports never name a rendition without media at the live edge (checklist R1-R3).
extension LLHLSStreamState {
    /// True while `name` is shed, or back but without a new part yet.
    func isUnlisted(_ name: String) -> Bool { withdrawnRungs.contains(name) || returningRungs.contains(name) }

    /// Leaves rung `name` out (shed) or lets it back in (listed again from its first new part).
    @discardableResult
    mutating func setListed(_ listed: Bool, rung name: String, now: ClockReading) -> [PackagerEvent] {
        run { s in
            if listed {
                // Still out until its first new part (`listedPart`): playlists do not change yet.
                guard s.withdrawnRungs.remove(name) != nil else { return }
                s.returningRungs.insert(name)
            } else {
                guard s.withdrawnRungs.insert(name).inserted else { return }
                s.returningRungs.remove(name)
                // Close what it muxed and stop it holding the others; frames still in flight are ignored.
                if s.rungs[name] != nil { s.stopRung(name, now: now) }
                s.emit(.rungListed(name, listed: false))
            }
        }
    }

    /// The transcoder says rung `name` cannot keep up right now (its queue is deep or it drops pictures): the source
    /// and the other rungs list their parts without waiting for it, before it trails by `RungAligner.lagLimit`.
    @discardableResult
    mutating func setKeepingUp(_ keepingUp: Bool, rung name: String, now: ClockReading) -> [PackagerEvent] {
        run { s in
            let changed = keepingUp ? s.behindRungs.remove(name) != nil : s.behindRungs.insert(name).inserted
            guard changed else { return }
            s.releaseAligned(now: now, force: false)
        }
    }

    /// A part of `name` was listed: a returning rung is in the multivariant again from now on.
    mutating func listedPart(of name: String) {
        guard returningRungs.remove(name) != nil else { return }
        emit(.rungListed(name, listed: true))
    }
}
