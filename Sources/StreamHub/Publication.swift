import MediaCore
import Synchronization

/// A publisher's handle on its live stream; every call returns at once.
public final class Publication: Sendable {
    /// The stream key published to.
    public let key: StreamKey
    /// Unique per publishing session.
    public let sessionID: String
    /// Where the publisher came from.
    public let origin: String

    private struct State {
        var description: StreamDescription?
        var readers: [StreamReader] = []
        var ended = false
        var framesIn = 0
    }

    private let state = Mutex(State())
    private let onEnd: @Sendable (Publication) -> Void
    private let onFrame: (@Sendable (MediaFrame) -> Void)?

    init(
        key: StreamKey,
        sessionID: String,
        origin: String,
        onFrame: (@Sendable (MediaFrame) -> Void)? = nil,
        onEnd: @escaping @Sendable (Publication) -> Void
    ) {
        self.key = key
        self.sessionID = sessionID
        self.origin = origin
        self.onFrame = onFrame
        self.onEnd = onEnd
    }

    /// The latest track description, if the publisher sent one.
    public var description: StreamDescription? { state.withLock { $0.description } }

    /// Frames the publisher has sent.
    public var framesIn: Int { state.withLock { $0.framesIn } }

    /// True after `end()`.
    public var isEnded: Bool { state.withLock { $0.ended } }

    /// Announces (or changes) the tracks; readers see it before the next frame.
    public func update(description: StreamDescription) {
        let readers = state.withLock { s -> [StreamReader] in
            guard !s.ended, s.description != description else { return [] }
            s.description = description
            return s.readers
        }
        for r in readers { r.push(.description(description)) }
    }

    /// Fans one frame out to every reader.
    public func send(_ frame: MediaFrame) {
        let readers = state.withLock { s -> [StreamReader]? in
            guard !s.ended else { return nil }
            s.framesIn += 1
            return s.readers
        }
        guard let readers else { return }
        // The hub's one ingest hook: every protocol's frames pass here, so none carries its own telemetry copy.
        onFrame?(frame)
        for r in readers { r.push(.frame(frame)) }
    }

    /// Ends the stream: readers get `.ended`; the key becomes free.
    public func end() {
        let readers = state.withLock { s -> [StreamReader]? in
            guard !s.ended else { return nil }
            s.ended = true
            defer { s.readers = [] }
            return s.readers
        }
        guard let readers else { return }
        for r in readers {
            r.push(.ended)
            r.finish()
        }
        onEnd(self)
    }

    func attach(_ reader: StreamReader) {
        let snapshot = state.withLock { s -> (StreamDescription?, Bool) in
            if !s.ended { s.readers.append(reader) }
            return (s.description, s.ended)
        }
        if let d = snapshot.0 { reader.push(.description(d)) }
        if snapshot.1 {
            reader.push(.ended)
            reader.finish()
        }
    }

    func detach(_ reader: StreamReader) {
        state.withLock { s in s.readers.removeAll { $0 === reader } }
    }
}
