import MediaCore
import Synchronization

/// One consumer's bounded view of a stream: ingest never waits on it; overflow drops the oldest frame.
public final class StreamReader: Sendable {
    /// Label for logs and metrics, e.g. `hls`.
    public let name: String
    /// Most frames held before the oldest is dropped.
    public let capacity: Int

    struct State {
        var queue: [StreamEvent] = []
        var head = 0
        var waiter: CheckedContinuation<StreamEvent?, Never>?
        var finished = false
        var dropped = 0
        var droppedSinceLastRead = false
    }

    private let state = Mutex(State())

    init(name: String, capacity: Int) {
        precondition(capacity > 0)
        self.name = name
        self.capacity = capacity
    }

    /// Frames dropped because this reader fell `capacity` frames behind.
    public var droppedFrames: Int { state.withLock { $0.dropped } }

    /// True once since the last call if frames were dropped before the next event; consumers resync on it.
    public func takeDropFlag() -> Bool {
        state.withLock { s in
            defer { s.droppedSinceLastRead = false }
            return s.droppedSinceLastRead
        }
    }

    /// Waits for the next event; nil after `.ended` was delivered or the reader was cancelled.
    public func next() async -> StreamEvent? {
        if let ready = state.withLock({ s -> StreamEvent?? in
            if let e = s.popFirst() { return .some(e) }
            return s.finished ? .some(nil) : .none
        }) {
            return ready
        }
        // Cancelling the consumer finishes the reader so shutdown never hangs on a silent publisher.
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (cont: CheckedContinuation<StreamEvent?, Never>) in
                let immediate: StreamEvent?? = state.withLock { s in
                    if let e = s.popFirst() { return .some(e) }
                    if s.finished || Task.isCancelled { return .some(nil) }
                    s.waiter = cont
                    return .none
                }
                if let immediate { cont.resume(returning: immediate) }
            }
        } onCancel: {
            self.finish()
        }
    }

    /// Delivers an event without ever blocking the caller.
    func push(_ event: StreamEvent) {
        let resume: (CheckedContinuation<StreamEvent?, Never>, StreamEvent)? = state.withLock {
            s -> (CheckedContinuation<StreamEvent?, Never>, StreamEvent)? in
            guard !s.finished || s.head < s.queue.count else { return nil }
            if let w = s.waiter {
                s.waiter = nil
                return (w, event)
            }
            if s.count >= capacity, case .frame = event {
                s.dropOldestFrame()
            }
            s.queue.append(event)
            return nil
        }
        if let (w, e) = resume { w.resume(returning: e) }
    }

    /// Stops delivery after what is queued; a waiting `next()` returns nil.
    func finish() {
        let waiter = state.withLock { s -> CheckedContinuation<StreamEvent?, Never>? in
            s.finished = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// True when the consumer stopped reading for good.
    var isFinished: Bool { state.withLock { $0.finished } }
}

extension StreamReader {
    /// Iterates events until the stream ends.
    public var events: AsyncStream<StreamEvent> {
        AsyncStream { continuation in
            let task = Task {
                while let e = await self.next() { continuation.yield(e) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

extension StreamReader.State {
    var count: Int { queue.count - head }

    mutating func popFirst() -> StreamEvent? {
        guard head < queue.count else { return nil }
        let e = queue[head]
        head += 1
        // Compact once the dead prefix dominates, keeping pops amortised O(1).
        if head > 64 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return e
    }

    mutating func dropOldestFrame() {
        guard let i = queue[head...].firstIndex(where: { if case .frame = $0 { true } else { false } }) else { return }
        queue.remove(at: i)
        dropped += 1
        droppedSinceLastRead = true
    }
}
