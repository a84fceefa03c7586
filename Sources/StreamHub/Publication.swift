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
        /// Video since the last keyframe (that keyframe first), for a reader that must decode before its first
        /// picture (a WebRTC rung's decoder): empty until a keyframe, and dropped past `lastGOPLimit`.
        var lastGOP: [MediaFrame] = []
        var lastGOPBytes = 0

        /// Starts the GOP over at a keyframe; appends anything else to a GOP already started, within the limit.
        mutating func keep(inLastGOP frame: MediaFrame) {
            if frame.isKeyframe {
                lastGOP.removeAll(keepingCapacity: true)
                lastGOPBytes = 0
            } else if lastGOP.isEmpty {
                return
            }
            lastGOPBytes += frame.data.count
            guard lastGOPBytes <= Publication.lastGOPLimit else {
                lastGOP.removeAll()
                lastGOPBytes = 0
                return
            }
            lastGOP.append(frame)
        }
    }

    /// Most bytes of the last GOP kept for replay (beyond that a reader waits for the next keyframe, as without it).
    static let lastGOPLimit = 8 << 20

    private let state = Mutex(State())
    private let onEnd: @Sendable (Publication) -> Void
    private let onFrame: (@Sendable (MediaFrame) -> Void)?
    /// A seat's publication hands everything to its key's channel, which decides what goes on air.
    private let relay: (@Sendable (Publication, StreamEvent) -> Void)?

    init(
        key: StreamKey,
        sessionID: String,
        origin: String,
        onFrame: (@Sendable (MediaFrame) -> Void)? = nil,
        relay: (@Sendable (Publication, StreamEvent) -> Void)? = nil,
        onEnd: @escaping @Sendable (Publication) -> Void
    ) {
        self.key = key
        self.sessionID = sessionID
        self.origin = origin
        self.onFrame = onFrame
        self.relay = relay
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
        let readers = state.withLock { s -> [StreamReader]? in
            guard !s.ended, s.description != description else { return nil }
            s.description = description
            // Frames from before a new description do not decode with it.
            s.lastGOP.removeAll()
            s.lastGOPBytes = 0
            return s.readers
        }
        guard let readers else { return }
        for r in readers { r.push(.description(description)) }
        relay?(self, .description(description))
    }

    /// Fans one frame out to every reader.
    public func send(_ frame: MediaFrame) {
        let readers = state.withLock { s -> [StreamReader]? in
            guard !s.ended else { return nil }
            s.framesIn += 1
            if frame.kind == .video { s.keep(inLastGOP: frame) }
            return s.readers
        }
        guard let readers else { return }
        // The hub's one ingest hook: every protocol's frames pass here, so none carries its own telemetry copy.
        onFrame?(frame)
        for r in readers { r.push(.frame(frame)) }
        relay?(self, .frame(frame))
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
        relay?(self, .ended)
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

    /// Attaches `reader` and hands it the description and the last GOP's video before any live frame (under the
    /// lock, so no frame is missed or doubled); returns how many replayed frames it got.
    func attachReplayingLastGOP(_ reader: StreamReader) -> Int {
        let (replayed, ended) = state.withLock { s -> (Int, Bool) in
            guard !s.ended else { return (0, true) }
            s.readers.append(reader)
            if let d = s.description { reader.push(.description(d)) }
            for frame in s.lastGOP { reader.push(.frame(frame)) }
            return (s.lastGOP.count, false)
        }
        if ended {
            reader.push(.ended)
            reader.finish()
        }
        return replayed
    }

    func detach(_ reader: StreamReader) {
        state.withLock { s in s.readers.removeAll { $0 === reader } }
    }
}
