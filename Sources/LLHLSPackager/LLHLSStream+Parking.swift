import Synchronization

/// Answers without a task per request (the origin's fast path on the event loops, and through `awaitAnswer` its
/// router): a request is answered at once or parked; a change checks each group of parked requests once and hands
/// every waiter the same `SharedResponse`.
extension LLHLSStream {
    /// A parked request: `expire` it at `deadline` unless a change answers it first.
    public struct ParkedRequest: Sendable {
        let key: ParkedRequests.Key
        let id: UInt64
        /// When it gets its time-out answer (B6's 503, or what a young stream has).
        public let deadline: ContinuousClock.Instant
    }

    /// A media playlist request (blocking reload, delta update): answered now (`deliver` runs before this returns,
    /// and nil is returned) or parked until a change answers it.
    public func answerMediaPlaylist(
        rendition name: String,
        request: PlaylistRequest,
        deliver: @escaping @Sendable (SharedResponse) -> Void
    ) -> ParkedRequest? {
        let request = pinningStartupHold(request, rendition: name)
        return answerOrPark(.playlist(rendition: name, request: request), deliver: deliver)
    }

    /// An init section, part or segment: answered now (nil) or, for the preload-hinted part, parked until listed.
    public func answerMedia(
        epoch: String,
        rendition name: String,
        file: String,
        deliver: @escaping @Sendable (SharedResponse) -> Void
    ) -> ParkedRequest? {
        answerOrPark(.media(epoch: epoch, rendition: name, file: file), deliver: deliver)
    }

    /// The deadline of a parked request passed: it gets its time-out answer, unless a change answered it already.
    public func expire(_ parkedRequest: ParkedRequest) {
        guard let waiter = parked.remove(parkedRequest.key, id: parkedRequest.id) else { return }
        waiter.deliver(timeOutAnswer(parkedRequest.key))
    }

    /// Requests parked on this stream now.
    public var parkedRequests: Int { parked.count }

    private func answerOrPark(
        _ key: ParkedRequests.Key,
        deliver: @escaping @Sendable (SharedResponse) -> Void
    ) -> ParkedRequest? {
        let started = ContinuousClock.now
        var deadline: ContinuousClock.Instant?
        while true {
            let seen = parked.version
            switch attempt(key, started: started, deadline: deadline, expired: false) {
            case .answer(let response, let version):
                deliver(share(response, key, version: version))
                return nil
            case .wait(let limit):
                deadline = limit
                // A change between the check and parking makes `park` refuse: check again.
                if let id = parked.park(key, deadline: limit, seen: seen, deliver: deliver) {
                    return ParkedRequest(key: key, id: id, deadline: limit)
                }
            }
        }
    }

    /// Something changed: one check per group of parked requests; a ready group gets one answer for all its waiters.
    func wakeParked() {
        let groups = parked.takeAll()
        guard !groups.isEmpty else { return }
        // Far enough that no group times out here: time-outs come from each waiter's deadline.
        let far = ContinuousClock.now + .seconds(3_600)
        for (key, waiters) in groups {
            switch attempt(key, started: far, deadline: far, expired: false) {
            case .answer(let response, let version):
                let shared = share(response, key, version: version)
                for waiter in waiters { waiter.deliver(shared) }
            case .wait:
                let late = parked.restore(key, waiters)
                guard !late.isEmpty else { continue }
                let shared = timeOutAnswer(key)
                for waiter in late { waiter.deliver(shared) }
            }
        }
    }

    private func attempt(
        _ key: ParkedRequests.Key,
        started: ContinuousClock.Instant,
        deadline: ContinuousClock.Instant?,
        expired: Bool
    ) -> RequestAttempt {
        switch key {
        case .playlist(let rendition, let request):
            return attemptMediaPlaylist(
                rendition: rendition,
                request: request,
                started: started,
                deadline: deadline,
                expired: expired
            )
        case .media(let epoch, let rendition, let file):
            let limit = deadline ?? started + .seconds(3 * targetDuration)
            return attemptMedia(epoch: epoch, rendition: rendition, file: file, deadline: limit, expired: expired)
        }
    }

    private func timeOutAnswer(_ key: ParkedRequests.Key) -> SharedResponse {
        let now = ContinuousClock.now
        guard case .answer(let response, let version) = attempt(key, started: now, deadline: now, expired: true) else {
            return SharedResponse(.error(503, "timed out", maxAge: 0))
        }
        return share(response, key, version: version)
    }

    /// The one `SharedResponse` for an answer every asker of `key` gets alike: a part, segment or init section
    /// (immutable for its URI) or a ready playlist at one state version; anything else is built for this request.
    private func share(_ response: HLSResponse, _ key: ParkedRequests.Key, version: UInt64?) -> SharedResponse {
        let immutable: Bool
        switch key {
        case .media: immutable = response.status == 200
        case .playlist: immutable = false
        }
        guard immutable || version != nil else { return SharedResponse(response) }
        return sharedAnswers.withLock { answers in
            if let kept = answers[key], kept.version == version { return kept.shared }
            // Old parts and playlists age out: a few parts' worth of URLs is all viewers at the live edge ask for.
            if answers.count >= 256 { answers.removeAll(keepingCapacity: true) }
            let shared = SharedResponse(response)
            answers[key] = (version, shared)
            return shared
        }
    }
}

extension LLHLSStream {
    /// The asker of a parked request went away: it is dropped without an answer.
    public func withdraw(_ parkedRequest: ParkedRequest) {
        _ = parked.remove(parkedRequest.key, id: parkedRequest.id)
    }
}
