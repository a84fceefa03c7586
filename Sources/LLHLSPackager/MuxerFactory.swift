import MediaCore

/// Builds muxers with the stream's fixed timing.
struct MuxerFactory: Sendable {
    /// PART-TARGET, whole milliseconds (fixed for the stream's life: CoreMedia rejects changes, mediamtx#6237).
    let partTarget: Duration
    /// Wanted segment length.
    let segmentTarget: Duration
    /// TARGETDURATION in seconds.
    let targetDuration: Int

    /// Defaults for a muxer made before the source described its tracks.
    static let fallback = MuxerFactory(partTarget: .milliseconds(200), segmentTarget: .seconds(2), targetDuration: 2)

    /// A muxer with the stream's timing that cuts segments by `policy`.
    func make(timescale: Int32, policy: CutPolicy) -> RenditionMuxer {
        let ts = Double(timescale)
        return RenditionMuxer(
            trackID: 1,
            timescale: timescale,
            partTarget: Int64((partTarget.secondsDouble * ts).rounded(.down)),
            segmentTarget: Int64(segmentTarget.secondsDouble * ts),
            segmentLimit: Self.segmentLimit(targetDuration: targetDuration, timescale: timescale),
            cutPolicy: policy
        )
    }

    /// A source track's muxer: it follows video's cuts (audio beside video) or cuts at its own keyframes.
    func make(kind: MediaKind, timescale: Int32, followsBoundaries: Bool) -> RenditionMuxer {
        make(timescale: timescale, policy: followsBoundaries ? .followsVideo : .sourceKeyframes)
    }

    /// A ladder rung's muxer: cuts only at an IDR within `tolerance` of a source cut.
    func makeRung(tolerance: MediaTime) -> RenditionMuxer {
        make(timescale: 90_000, policy: .rung(tolerance: tolerance.converted(to: 90_000).value))
    }

    /// The same timing with TARGETDURATION decided.
    func with(targetDuration td: Int) -> MuxerFactory {
        MuxerFactory(partTarget: partTarget, segmentTarget: segmentTarget, targetDuration: td)
    }

    /// Longest segment in ticks: EXTINF rounds to nearest, so stay below TARGETDURATION + 0.5 s (RFC 8216bis §4.4.3.1).
    static func segmentLimit(targetDuration: Int, timescale: Int32) -> Int64 {
        Int64((Double(targetDuration) + 0.45) * Double(timescale))
    }

    /// Snaps the wanted part duration to whole frames of the source, rounded up to the next millisecond plus one
    /// (jitter of RTMP's ms timestamps).
    static func partTarget(wanted: Duration, frameRate: Double?) -> Duration {
        let w = wanted.secondsDouble
        // Unknown rate (WebRTC: timestamps from a jittering capture clock): 10 % room, or parts close a frame early (P3).
        guard let fps = frameRate, fps > 1, fps < 241 else {
            return .milliseconds((Int64((w * 1000).rounded()) * 11 + 9) / 10)
        }
        let frames = max(1, (w * fps).rounded())
        let exact = frames / fps
        return .milliseconds(Int64((exact * 1000).rounded(.up)) + 1)
    }
}
