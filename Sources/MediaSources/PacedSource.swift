import FFmpegBridge
import MediaCore

/// A source read in real time: `PublishPacer` says when each frame is due, this sleeps until then and rewinds a
/// looping source; the RTMP and WHIP publishers share it so both pace alike.
public struct PacedSource {
    /// What the next read gave.
    public enum Release {
        /// `frame` is due now; `due` is its media time from the first frame.
        case frame(MediaFrame, due: Duration)
        /// The source ended and was rewound (`loops` times so far); read again.
        case rewound(loops: Int)
    }

    private let source: any MediaSource
    private let loop: Bool
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var pacer: PublishPacer
    private var released = 0
    private var loops = 0

    /// Starts the clock now; stops after `duration` of media when given.
    public init(source: any MediaSource, loop: Bool, duration: Duration?) {
        self.source = source
        self.loop = loop
        pacer = PublishPacer(duration: duration)
        start = clock.now
    }

    /// The next release; nil when the source ended (not looping), the duration is reached or the task is cancelled.
    /// Rethrows the source's read and rewind errors.
    public mutating func next() async throws(FFmpegError) -> Release? {
        guard let input = try source.nextFrame() else {
            guard loop, released > 0 else { return nil }
            try source.rewind()
            pacer.sourceRewound()
            loops += 1
            return .rewound(loops: loops)
        }
        guard case .send(let frame, let due) = pacer.schedule(input) else { return nil }
        do {
            try await clock.sleep(until: start.advanced(by: due))
        } catch {
            return nil  // Cancelled: stop cleanly with what was sent.
        }
        released += 1
        return .frame(frame, due: due)
    }
}
