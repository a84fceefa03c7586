import Synchronization

/// SRT ingest's threads and open sessions, so shutdown can close every socket and wait for every thread.
final class SRTSessionRegistry: Sendable {
    private struct State {
        var sockets: Set<SRTSocket> = []
        var threads = 0
        var closed = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Sessions publishing now.
    var count: Int { state.withLock { $0.sockets.count } }

    /// True after `closeAll()`: sessions leave their loops.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Tracks a session's socket; false (and the socket closed) after shutdown began.
    func add(_ socket: SRTSocket) -> Bool {
        let ok = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            s.sockets.insert(socket)
            return true
        }
        if !ok { socket.close() }
        return ok
    }

    /// Forgets a session's socket (it closes it itself).
    func remove(_ socket: SRTSocket) { _ = state.withLock { $0.sockets.remove(socket) } }

    /// A thread (accept loop or session) began.
    func threadStarted() { state.withLock { $0.threads += 1 } }

    /// A thread ended; the last one wakes `waitUntilIdle()`.
    func threadEnded() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.threads -= 1
            guard s.threads == 0 else { return [] }
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume() }
    }

    /// Refuses new sessions and closes every open socket (their blocked receives return).
    func closeAll() {
        let (sockets, waiters) = state.withLock { s in
            s.closed = true
            defer { s.closeWaiters = [] }
            return (s.sockets, s.closeWaiters)
        }
        for socket in sockets { socket.close() }
        for w in waiters { w.resume() }
    }

    /// Returns once `closeAll()` ran (the service's run() waits here while serving).
    func waitUntilClosed() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let done = state.withLock { s -> Bool in
                if s.closed { return true }
                s.closeWaiters.append(c)
                return false
            }
            if done { c.resume() }
        }
    }

    /// Returns once no SRT ingest thread runs.
    func waitUntilIdle() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let done = state.withLock { s -> Bool in
                if s.threads == 0 { return true }
                s.waiters.append(c)
                return false
            }
            if done { c.resume() }
        }
    }
}
