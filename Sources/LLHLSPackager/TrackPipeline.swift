import FMP4
import MediaCore

/// One rendition's state: its muxer (per publishing session), what it published (kept across sessions), and the
/// frames it holds until the source video has passed their time.
struct TrackPipeline: Sendable {
    /// Video or audio.
    let kind: MediaKind
    /// Track ticks per second.
    let timescale: Int32
    /// The current session's cutter.
    var muxer: RenditionMuxer
    /// Published parts, segments and init sections.
    var rendition: PublishedRendition
    /// Codec parameters of the current session.
    var parameters: FMP4Track.Media
    /// Audio: where the next frame should start, to absorb RTMP's millisecond rounding.
    var expectedNextDTS: Int64?
    /// Frames waiting for the source video to pass their time (audio, and rung frames), so cuts align.
    var heldFrames: [MediaFrame] = []
    /// Rungs: must start on an IDR at a source cut (new, after a restart, a hole or dropped frames).
    var awaitingKeyframe = false
    /// Rungs: fed by a transcoder and started, so the others wait for it (see `RungAligner`).
    var active = false
    /// Rungs, after a splice: the init section index of the previous timeline, whose last frames (those the encoder
    /// still held when the source moved on) this rung packages before it starts on the new one.
    var finishingSession: Int?

    /// End of everything published on the stream timeline.
    var publishedEnd: MediaTime? {
        guard let s = rendition.segments.last else { return nil }
        return MediaTime(value: s.startDTS + s.duration, timescale: s.timescale)
    }

    /// True when it has something every player can start on: one complete segment (see `RenditionListing`).
    var hasFirstMedia: Bool { rendition.lastCompleteMSN != nil }

    /// Starts a new timeline with `muxer`: its first segment opens with a DISCONTINUITY; a rung (`isRung`) waits
    /// for its IDR at a source cut.
    mutating func beginTimeline(muxer: RenditionMuxer, isRung: Bool) {
        finishingSession = nil
        rendition.pendingDiscontinuity = true
        expectedNextDTS = nil
        self.muxer = muxer
        guard isRung else { return }
        awaitingKeyframe = true
        active = false
    }

    /// Serializes this rendition's init section for session `index`.
    mutating func installInit(session index: Int) {
        rendition.installInit(
            FMP4InitSegment.serialize(track: FMP4Track(trackID: 1, timescale: UInt32(timescale), media: parameters)),
            session: index
        )
    }

    /// Takes the held frames the source video has passed (strictly: the source decides a cut at frame K only when
    /// frame K+1 arrives), all of them, or the oldest beyond `limit` (a stalled source must not hold them for ever).
    mutating func releaseHeld(sourcePassed last: MediaTime?, all: Bool, limit: Int) -> [MediaFrame] {
        var released = 0
        for f in heldFrames {
            let passed = last.map { f.dts < $0 } ?? false
            guard all || passed || heldFrames.count - released > limit else { break }
            released += 1
        }
        defer { heldFrames.removeFirst(released) }
        return Array(heldFrames.prefix(released))
    }

    /// An audio frame's decode time: AAC frames are exactly samplesPerFrame long, so RTMP's millisecond rounding is
    /// absorbed and time never runs backwards.
    mutating func smoothedDTS(_ dts: Int64) -> Int64 {
        guard case .audio(let a) = parameters else { return dts }
        var out = dts
        if let expected = expectedNextDTS, abs(expected - out) <= Int64(a.samplesPerFrame / 2) { out = expected }
        if let expected = expectedNextDTS, out < expected { out = expected }
        expectedNextDTS = out + Int64(a.samplesPerFrame)
        return out
    }
}
