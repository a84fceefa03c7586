import HLSPlaylist
import MediaCore
import NIOCore
import Synchronization

/// The public request API the origin calls: playlists and media, each waiting as the request allows.
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
        await awaitAnswer { answerMediaPlaylist(rendition: name, request: request, deliver: $0) }
    }

    /// An init section, part or segment of the source's video or audio.
    public func media(epoch: String, kind: MediaKind, file: String) async -> HLSResponse {
        await media(epoch: epoch, rendition: kind.rawValue, file: file)
    }

    /// An init section, part or segment by its URI components (`{epoch}/{rendition}/{file}`); the preload-hinted part
    /// waits until it is listed.
    public func media(epoch: String, rendition name: String, file: String) async -> HLSResponse {
        await awaitAnswer { answerMedia(epoch: epoch, rendition: name, file: file, deliver: $0) }
    }
}
