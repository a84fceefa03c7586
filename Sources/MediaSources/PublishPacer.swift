import MediaCore

/// Real-time pacing as a value: says when each frame is due and keeps timestamps rising across loops.
///
/// Like `ffmpeg -re`, a frame is due when its decode time, measured from the first frame, has elapsed.
public struct PublishPacer: Sendable {
    /// Stop before the first frame at or past this much media time; nil never stops.
    public let duration: Duration?
    private var origin: MediaTime?
    private var loopOffset = MediaTime.zero(timescale: 90_000)
    /// End of the media seen so far (last decode time plus that track's last frame spacing).
    private var end = MediaTime.zero(timescale: 90_000)
    private var last: [MediaKind: MediaTime] = [:]
    private var spacing: [MediaKind: MediaTime] = [:]

    /// What to do with the next frame.
    public enum Action: Sendable {
        /// Send `frame` (timestamps already moved past earlier loops) once `due` has elapsed since the start.
        case send(MediaFrame, due: Duration)
        /// The duration is reached: stop without sending.
        case stop
    }

    /// A pacer that stops after `duration` of media.
    public init(duration: Duration? = nil) { self.duration = duration }

    /// Schedules the next frame from the source.
    public mutating func schedule(_ input: MediaFrame) -> Action {
        var frame = input
        if loopOffset.value > 0 { frame.dts = frame.dts + loopOffset }
        let origin = self.origin ?? frame.dts
        self.origin = origin
        let due = (frame.dts - origin).duration
        if let duration, due >= duration { return .stop }
        if let previous = last[frame.kind], frame.dts > previous { spacing[frame.kind] = frame.dts - previous }
        last[frame.kind] = frame.dts
        let frameEnd = frame.dts + (spacing[frame.kind] ?? .zero(timescale: frame.dts.timescale))
        if frameEnd > end { end = frameEnd.converted(to: 90_000) }
        return .send(frame, due: max(.zero, due))
    }

    /// The source restarted from zero: later frames continue after everything sent so far.
    public mutating func sourceRewound() {
        loopOffset = end
        last = [:]
    }
}
