import Synchronization

/// Wakes every waiter when a stream publishes something; blocked requests then re-check their condition.
final class ChangeSignal: Sendable {
    private struct State {
        var version: UInt64 = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    /// Number of requests currently waiting.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Signals a change to everyone waiting.
    func fire() {
        let ws = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.version &+= 1
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for w in ws { w.resume() }
    }

    /// Current change count (take it before checking a condition, then wait past it).
    var version: UInt64 { state.withLock { $0.version } }

    /// Returns after the next change past `seen`, at `deadline`, or on cancellation, whichever is first.
    func wait(after seen: UInt64, until deadline: ContinuousClock.Instant) async {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            self.resume(id)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { s -> Bool in
                    if s.version != seen { return true }
                    s.waiters[id] = c
                    return false
                }
                if ready { c.resume() }
            }
        } onCancel: {
            self.resume(id)
        }
        timer.cancel()
    }

    private func resume(_ id: Int) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
}
