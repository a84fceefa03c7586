import MediaCore

/// Maps one publishing session's timestamps onto the stream's continuous timeline (survives reconnects).
struct StreamTimeline: Sendable {
    /// First decode time the session sent.
    var origin: MediaTime?
    /// Where the session starts on the stream timeline.
    var base: MediaTime = .zero(timescale: 90_000)
    /// Wall clock at `base` (ingest time of the session's first frame): the PDT anchor.
    var wallAnchor: WallTime?

    /// Starts a new session at `base`.
    mutating func restart(at newBase: MediaTime) {
        origin = nil
        base = newBase
        wallAnchor = nil
    }

    /// Stream-timeline decode time of a frame in `timescale`; nil for frames before the session's origin. The
    /// session's first frame anchors PDT at its ingest wall time, or at `fallback` when it carries none.
    mutating func map(_ frame: MediaFrame, timescale: Int32, fallback: WallTime) -> MediaTime? {
        if origin == nil {
            origin = frame.dts
            wallAnchor = frame.stamps.ingestWall ?? fallback
        }
        return peek(frame, timescale: timescale)
    }

    /// Like `map`, but never sets the origin (for frames that must not start a session).
    func peek(_ frame: MediaFrame, timescale: Int32) -> MediaTime? {
        guard let origin else { return nil }
        let rel = frame.dts - origin
        guard rel.value >= 0 else { return nil }
        return MediaTime(
            value: rel.converted(to: timescale).value + base.converted(to: timescale).value,
            timescale: timescale
        )
    }

    /// EXT-X-PROGRAM-DATE-TIME for a stream-timeline time (same mapping for every rendition, checklist M8).
    func programDateTime(at time: MediaTime, fallback: WallTime) -> WallTime {
        (wallAnchor ?? fallback).advanced(by: (time - base).duration)
    }

    /// The same, as rendition `kind` prints it: video's rounded up to the millisecond, audio's down (the print
    /// truncates), so a player that lines audio up with video by these dates (hls.js does, at millisecond precision)
    /// never dates an audio segment after its media, which its exact lookup at the live edge would skip for a playlist.
    func programDateTime(at time: MediaTime, fallback: WallTime, kind: MediaKind) -> WallTime {
        let t = programDateTime(at: time, fallback: fallback)
        guard kind == .video else { return t }
        let ms: Int64 = 1_000_000
        return WallTime(nanosecondsSince1970: (t.nanosecondsSince1970 + ms - 1) / ms * ms)
    }
}
