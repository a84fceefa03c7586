import Synchronization

/// The router's requests wait the way the fast path's do: parked with the stream (`LLHLSStream+Parking`), answered
/// by the change that makes them answerable or at their deadline. One mechanism for every blocking request.
extension LLHLSStream {
    /// Answers through `answerOrPark` (one of the fast path's entry points) for a caller that can wait: at once, or
    /// when its parked request is answered, expires, or the caller is cancelled (then with its time-out answer).
    func awaitAnswer(
        _ answerOrPark: (@escaping @Sendable (SharedResponse) -> Void) -> ParkedRequest?
    ) async -> HLSResponse {
        let waiter = AwaitedRequest()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<HLSResponse, Never>) in
                let parked = answerOrPark { shared in
                    waiter.answered()
                    c.resume(returning: shared.response)
                }
                guard let parked else { return }
                let timer = Task {
                    try? await Task.sleep(until: parked.deadline, clock: .continuous)
                    self.expire(parked)
                }
                if waiter.parked(parked, timer: timer) { expire(parked) }
            }
        } onCancel: {
            if let parked = waiter.cancelled() { expire(parked) }
        }
    }
}

/// Where one awaited request is: the change, its deadline and its caller's cancellation race to answer it, and the
/// parked request's removal lets exactly one of them through; this tells the cancellation what to expire.
private final class AwaitedRequest: Sendable {
    private enum Phase {
        case asking
        case parked(LLHLSStream.ParkedRequest, timer: Task<Void, Never>)
        case cancelled
        case answered
    }

    private let phase = Mutex(Phase.asking)

    /// The answer was handed over: the deadline's timer is no longer needed.
    func answered() {
        let timer = phase.withLock { p -> Task<Void, Never>? in
            defer { p = .answered }
            if case .parked(_, let timer) = p { return timer }
            return nil
        }
        timer?.cancel()
    }

    /// The request parked with its deadline's timer; true when its caller was cancelled meanwhile (expire it now).
    func parked(_ request: LLHLSStream.ParkedRequest, timer: Task<Void, Never>) -> Bool {
        let (expire, stale) = phase.withLock { p -> (Bool, Bool) in
            switch p {
            case .asking:
                p = .parked(request, timer: timer)
                return (false, false)
            case .cancelled: return (true, false)
            case .answered, .parked: return (false, true)
            }
        }
        // Answered before it could record its timer.
        if stale { timer.cancel() }
        return expire
    }

    /// The caller went away: its parked request to expire, if it is parked (before that, parking expires it).
    func cancelled() -> LLHLSStream.ParkedRequest? {
        phase.withLock { p in
            switch p {
            case .asking:
                p = .cancelled
                return nil
            case .parked(let request, _): return request
            case .cancelled, .answered: return nil
            }
        }
    }
}
