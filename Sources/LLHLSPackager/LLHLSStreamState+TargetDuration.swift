import MediaCore

/// EXT-X-TARGETDURATION from the source's keyframe interval: the segment target (1 s by default) when keyframes come
/// that often, else the first GOP rounded (a 2 s GOP, OBS's usual setting, keeps 2 s segments that start on an IDR).
/// Decided when the first video segment closes, which is before any playlist is served (fast start waits for a whole
/// segment), so no player ever sees it change (RFC 8216bis §6.2.1: TARGETDURATION MUST NOT change).
extension LLHLSStreamState {
    /// TARGETDURATION while the first segment is open: the ceiling the first GOP may use before a cut is forced.
    var provisionalTargetDuration: Int { LLHLSConfiguration.wholeSeconds(atLeast: gridTarget) }

    /// EXT-X-TARGETDURATION of every playlist of the stream.
    var targetDuration: Int {
        decidedTargetDuration ?? (video == nil ? config.targetDurationSeconds : provisionalTargetDuration)
    }

    /// The TARGETDURATION a first segment of `ticks` at 90 kHz asks for: its rounded length, at least the configured one.
    func targetDuration(firstSegmentTicks ticks: Int64) -> Int {
        let seconds = Int((Double(ticks) / 90_000).rounded())
        return min(provisionalTargetDuration, max(config.targetDurationSeconds, seconds))
    }

    /// Fixes TARGETDURATION once the source video's first segment is known, and caps every muxer by it.
    mutating func decideTargetDurationIfNeeded() {
        guard decidedTargetDuration == nil, videoSegmentStarts.count >= 2 else { return }
        let td = targetDuration(firstSegmentTicks: videoSegmentStarts[1].dts - videoSegmentStarts[0].dts)
        decidedTargetDuration = td
        for name in pipelineNames {
            guard var p = pipeline(named: name) else { continue }
            p.muxer.segmentLimit = MuxerFactory.segmentLimit(targetDuration: td, timescale: p.timescale)
            setPipeline(named: name, p)
        }
        if let f = factory {
            factory = MuxerFactory(partTarget: f.partTarget, segmentTarget: f.segmentTarget, targetDuration: td)
        }
    }
}
