import FMP4
import MediaCore

/// The renditions by name, and what every one of them gets: its muxer, init section and segment limit.
extension LLHLSStreamState {
    /// Every rendition by name: the source's `video`, the ladder rungs, then `audio`.
    var pipelineNames: [String] {
        (video == nil ? [] : ["video"]) + rungs.keys.sorted() + (audio == nil ? [] : ["audio"])
    }

    /// The source's `video` or `audio` rendition.
    func pipeline(_ kind: MediaKind) -> TrackPipeline? { kind == .video ? video : audio }

    /// A rendition by its playlist name (`video`, `audio`, or a rung such as `480p`).
    func pipeline(named name: String) -> TrackPipeline? {
        switch name {
        case "video": video
        case "audio": audio
        default: rungs[name]
        }
    }

    /// Stores a rendition by its playlist name.
    mutating func setPipeline(named name: String, _ p: TrackPipeline) {
        switch name {
        case "video": video = p
        case "audio": audio = p
        default: rungs[name] = p
        }
    }

    /// A muxer for the source's track with the stream's timing (audio follows video's cuts when there is video).
    func makeMuxer(_ kind: MediaKind, timescale: Int32) -> RenditionMuxer {
        let besideVideo = kind == .audio && description?.video != nil
        var muxer = (factory ?? .fallback).make(kind: kind, timescale: timescale, followsBoundaries: besideVideo)
        muxer.independentOnlyAtSegmentStarts = besideVideo
        return muxer
    }

    /// Serializes every rendition's init section for the current session.
    mutating func installInitSections() {
        for name in pipelineNames {
            guard var p = pipeline(named: name) else { continue }
            p.installInit(session: sessionIndex)
            setPipeline(named: name, p)
        }
    }

    /// Caps every muxer by the TARGETDURATION the source's first segment decided.
    mutating func decideTargetDuration(_ td: Int) {
        for name in pipelineNames {
            guard var p = pipeline(named: name) else { continue }
            p.muxer.segmentLimit = MuxerFactory.segmentLimit(targetDuration: td, timescale: p.timescale)
            setPipeline(named: name, p)
        }
        factory = factory?.with(targetDuration: td)
        emit(.targetDurationDecided(seconds: td))
    }
}
