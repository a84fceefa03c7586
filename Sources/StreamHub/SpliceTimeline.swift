import MediaCore

/// The air's one timeline across publishers and the slate: each source's timestamps are shifted so that what it
/// sends after a splice starts where the air left off, and no track ever goes back in time.
struct SpliceTimeline: Sendable {
    /// Added to the on-air source's timestamps.
    private(set) var offset = MediaTime.zero(timescale: 90_000)
    /// Where the next video and audio frame may start on the air (the last one's end).
    private(set) var videoEnd: MediaTime?
    private(set) var audioEnd: MediaTime?
    private var lastVideoDTS: MediaTime?
    /// The last gap between two video frames, taken as the last frame's length.
    private var videoStep = MediaTime(value: 3_000, timescale: 90_000)
    /// When the last frame went on air.
    private(set) var lastPlaced: ContinuousClock.Instant?

    /// The end of everything on air so far (90 kHz); nil before the first frame.
    var end: MediaTime? {
        switch (videoEnd?.converted(to: 90_000), audioEnd?.converted(to: 90_000)) {
        case (nil, nil): nil
        case (let v?, nil): v
        case (nil, let a?): a
        case (let v?, let a?): max(v, a)
        }
    }

    /// The next source's frame at `start` (its own time) goes on air where the air ends; the first source keeps its
    /// own times.
    mutating func splice(sourceStart start: MediaTime) {
        guard let end else { return }
        offset = end - start.converted(to: 90_000)
        lastVideoDTS = nil
    }

    /// `frame` of the on-air source, shifted onto the air; `audioDuration` is an audio frame's length.
    mutating func place(_ frame: MediaFrame, audioDuration: MediaTime?, now: ContinuousClock.Instant) -> MediaFrame {
        var out = frame
        out.dts = frame.dts + offset.converted(to: frame.dts.timescale)
        lastPlaced = now
        switch frame.kind {
        case .video:
            if let last = lastVideoDTS, out.dts.converted(to: 90_000) > last {
                videoStep = out.dts.converted(to: 90_000) - last
            }
            lastVideoDTS = out.dts.converted(to: 90_000)
            let end = out.dts.converted(to: 90_000) + videoStep
            videoEnd = videoEnd.map { max($0, end) } ?? end
        case .audio:
            let length = audioDuration ?? MediaTime(value: 1_024, timescale: 48_000)
            let end = (out.dts + length.converted(to: out.dts.timescale)).converted(to: 90_000)
            audioEnd = audioEnd.map { max($0, end) } ?? end
        }
        return out
    }
}
