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

    /// Most silence one splice fills in: past any encoder's interleaving or B-frame flush; audio that stopped longer
    /// ago is a source without sound for a while, not a hole at a switch.
    static let silenceLimit = MediaTime(value: 90_000, timescale: 90_000)

    /// `silence` (one frame `length` long) repeated from where the air's audio ends to its video's end (at most one
    /// frame past it), on the air: the next source starts where the air ends, so audio that ended short of its video
    /// would leave a hole there, which MSE players stall on (hls.js: bufferSeekOverHole).
    mutating func silenceToVideoEnd(
        _ silence: MediaFrame,
        length: MediaTime,
        now: ContinuousClock.Instant
    ) -> [MediaFrame] {
        guard let videoEnd, let audioEnd, audioEnd < videoEnd, videoEnd - audioEnd <= Self.silenceLimit,
            length.value > 0
        else { return [] }
        var t = audioEnd.converted(to: length.timescale)
        var out: [MediaFrame] = []
        while t < videoEnd {
            var frame = silence
            frame.dts = t
            frame.compositionOffset = .zero(timescale: length.timescale)
            frame.stamps = HopStamps(capture: .now(), ingested: now, ingestWall: .now())
            out.append(frame)
            t = t + length
        }
        self.audioEnd = t.converted(to: 90_000)
        lastPlaced = now
        return out
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
