import MediaCore

/// One publisher's timestamps kept monotonic across jumps (an encoder restarted on the same connection, a restreamer
/// switching sources), as SRS's `time_jitter` and nginx-rtmp do: a track going back in time, or forward past the
/// session's end by more than `forwardLimit`, is rebased so it goes on one frame after its last, and the other track
/// making the same jump is moved by as much, so A/V sync is kept.
struct MonotonicTimeline: Sendable {
    /// One rebase, for the log line: the track that jumped, its timestamps either side (the source's) and the offset
    /// now added to every track.
    struct Rebase: Sendable, Equatable {
        var track: MediaKind
        var from: MediaTime
        var to: MediaTime
        var offset: MediaTime
    }

    /// A step forward past the session's end by more than this is a jump (a publisher that really pauses stalls, and
    /// the on-air switch splices it).
    static let forwardLimit: Duration = .seconds(3)
    /// The other track jumping by this close to a rebase's jump is the same jump (an encoder restart moves both
    /// tracks together; their last and first frames are interleaved a little apart).
    static let sameJump: Duration = .seconds(1)
    /// The other track, moved by as much, landing this close to where its next frame is due goes on there instead:
    /// the source's own interleaving leaves a hole or overlap of a frame or two (hls.js stalls on 42 ms of missing
    /// audio), and lip sync tolerates it.
    static let snap: Duration = .milliseconds(100)
    /// How much of the other track's media may pass before it no longer counts as following a rebase (a jump of one
    /// track alone).
    static let followWindow: Duration = .seconds(2)

    private struct Track {
        var lastIn: MediaTime
        var lastOut: MediaTime
        /// The last frame's length, taken as the last gap between two frames.
        var step: MediaTime
        var offset: MediaTime
    }

    /// A rebase the other track has not followed yet.
    private struct Pending {
        var track: MediaKind
        var jump: MediaTime
        /// What the rebase added to the jumping track's offset: the follower's changes as much, so the two keep the
        /// relation they had.
        var shift: MediaTime
        /// Past this (the other track's output time) the other track is not following.
        var deadline: MediaTime
    }

    private var tracks: [MediaKind: Track] = [:]
    private var pending: Pending?
    /// The offset of the latest rebase, taken by a track's first frame.
    private(set) var offset = MediaTime.zero(timescale: 90_000)
    /// Rebases so far.
    private(set) var rebases = 0

    /// Where the session ends: one frame after the latest frame of any track (90 kHz).
    var end: MediaTime? {
        tracks.values.map { ($0.lastOut + $0.step).converted(to: 90_000) }.max()
    }

    /// `frame` on the session's monotonic timeline, and the rebase it caused, if any.
    mutating func place(_ frame: MediaFrame) -> (frame: MediaFrame, rebase: Rebase?) {
        let kind = frame.kind
        guard var track = tracks[kind] else {
            let out = frame.dts + offset
            tracks[kind] = Track(lastIn: frame.dts, lastOut: out, step: Self.defaultStep(kind), offset: offset)
            return (Self.moved(frame, to: out), nil)
        }
        var out = frame.dts + track.offset
        var rebase: Rebase?
        let end = self.end ?? out
        let jumped = out < track.lastOut || out > end + Self.ticks(Self.forwardLimit)
        if !jumped, let p = pending, p.track != kind, out > p.deadline { pending = nil }
        if jumped {
            let jump = frame.dts - track.lastIn
            // Where the track's next frame is due: a rebased track goes on there, with no hole (players stall on one).
            let due = (track.lastOut + track.step).converted(to: 90_000)
            if let p = pending, p.track != kind, Self.isClose(jump, p.jump, within: Self.sameJump) {
                track.offset = track.offset + p.shift
                pending = nil
                let landing = (frame.dts + track.offset).converted(to: 90_000)
                if Self.isClose(landing, due, within: Self.snap) || landing < track.lastOut {
                    track.offset = due - frame.dts.converted(to: 90_000)
                }
            } else {
                let before = track.offset
                track.offset = due - frame.dts.converted(to: 90_000)
                offset = track.offset
                rebases += 1
                pending = Pending(
                    track: kind,
                    jump: jump.converted(to: 90_000),
                    shift: track.offset - before,
                    deadline: end + Self.ticks(Self.followWindow)
                )
                rebase = Rebase(track: kind, from: track.lastIn, to: frame.dts, offset: track.offset)
            }
            out = frame.dts + track.offset
        }
        if out > track.lastOut { track.step = out - track.lastOut }
        track.lastIn = frame.dts
        track.lastOut = out
        tracks[kind] = track
        return (Self.moved(frame, to: out), rebase)
    }

    private static func moved(_ frame: MediaFrame, to dts: MediaTime) -> MediaFrame {
        var out = frame
        out.dts = dts
        return out
    }

    private static func defaultStep(_ kind: MediaKind) -> MediaTime {
        kind == .video ? MediaTime(value: 3_000, timescale: 90_000) : MediaTime(value: 1_024, timescale: 48_000)
    }

    private static func isClose(_ a: MediaTime, _ b: MediaTime, within d: Duration) -> Bool {
        abs((a - b).converted(to: 90_000).value) <= ticks(d).value
    }

    private static func ticks(_ d: Duration) -> MediaTime {
        MediaTime(value: d.milliseconds * 90, timescale: 90_000)
    }
}
