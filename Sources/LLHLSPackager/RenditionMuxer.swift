import FMP4
import MediaCore

/// Cuts one track into CMAF chunks (parts) and segments; a value that returns what to publish.
///
/// A sample's duration is known only when the next one arrives, so each sample waits one frame. Whether it opens a
/// segment is decided as it arrives where the rules allow, so the segment before it closes at once.
struct RenditionMuxer: Sendable {
    /// Track settings.
    let trackID: UInt32
    /// Ticks per second.
    let timescale: Int32
    /// Longest part, in ticks (the advertised PART-TARGET).
    let partTarget: Int64
    /// Wanted segment length, in ticks.
    let segmentTarget: Int64
    /// Hard cap so EXTINF never rounds above TARGETDURATION, in ticks (lowered once the stream's TARGETDURATION is
    /// decided from its first segment).
    var segmentLimit: Int64
    /// Video cuts segments on sync samples; audio follows `boundaries` from video.
    let followsBoundaries: Bool
    /// Ladder rungs: cut only at a sync sample within this many ticks of a source boundary.
    let syncBoundaryTolerance: Int64?
    /// The source's keyframe interval exceeds the segment target: cut where samples say `opensSegment`, not at keyframes.
    var gridCuts = false
    /// Audio beside video: only a part that starts a segment (where video has its keyframe) says INDEPENDENT. hls.js
    /// starts video at the last independent part before its start position but audio at the part holding it, and the
    /// gap between them stalled stock hls.js at start-up (`bufferSeekOverHole`); so both start at the segment.
    var independentOnlyAtSegmentStarts = false

    private var pending: TrackSample?
    /// The pending sample opens a segment, decided as it arrived (its segment's predecessor is already closed).
    private var pendingOpensSegment = false
    private(set) var lastDuration: Int64 = 0
    private var partSamples: [FMP4Sample] = []
    private var partIngested: [ContinuousClock.Instant] = []
    private var partCaptured: [WallTime] = []
    private var partStart: Int64 = 0
    private var partDuration: Int64 = 0
    private var partStartsSegment = true
    private var segmentStart: Int64?
    /// The open segment started on a sync sample (false after an early first cut between keyframes).
    private var segmentStartedOnSync = true
    /// Decode time of the last sync sample, and the GOP length seen before it (video).
    private var lastSyncDTS: Int64?
    private var gopEstimate: Int64?
    private var sequenceNumber: UInt32 = 0
    /// Segment start times decided by the video track, in this track's ticks.
    private var boundaries: [Int64] = []
    /// Segment starts this muxer decided (video), for the audio track to follow.
    private(set) var decidedBoundaries: [Int64] = []

    init(
        trackID: UInt32,
        timescale: Int32,
        partTarget: Int64,
        segmentTarget: Int64,
        segmentLimit: Int64,
        followsBoundaries: Bool,
        syncBoundaryTolerance: Int64? = nil
    ) {
        self.syncBoundaryTolerance = syncBoundaryTolerance
        self.trackID = trackID
        self.timescale = timescale
        self.partTarget = partTarget
        self.segmentTarget = segmentTarget
        self.segmentLimit = segmentLimit
        self.followsBoundaries = followsBoundaries
    }

    /// The decode time the next sample is expected at (end of everything pushed), if known.
    var endDTS: Int64? { pending.map { $0.dts + lastDuration } }

    /// Tells an audio muxer where video cut a segment.
    mutating func addBoundary(_ t: Int64) { boundaries.append(t) }

    /// Removes boundaries reported to the other track.
    mutating func takeDecidedBoundaries() -> [Int64] {
        defer { decidedBoundaries = [] }
        return decidedBoundaries
    }

    /// Adds a sample; returns the parts it completed.
    mutating func push(_ sample: TrackSample) -> [MuxedPart] {
        var out: [MuxedPart] = []
        if let previous = pending {
            let duration = max(1, sample.dts - previous.dts)
            lastDuration = duration
            out += place(previous, duration: duration, opensSegment: pendingOpensSegment)
        }
        pending = sample
        pendingOpensSegment = false
        // Judged as it arrives, with the last frame's duration for its own; the length caps wait for `place`.
        guard let segStart = segmentStart, lastDuration > 0,
            cutsSegment(sample, segmentLength: sample.dts - segStart, duration: lastDuration)
        else { return out }
        // The segment ends before this sample: close its last part now and say so, a part earlier than its successor.
        pendingOpensSegment = true
        if !followsBoundaries { decidedBoundaries.append(sample.dts) }
        if let part = closePart(endsSegment: true) {
            out.append(part)
        } else if !out.isEmpty {
            out[out.count - 1].endsSegment = true
        }
        return out
    }

    /// True when `s` opens a segment by itself: at a source boundary (rungs), at video's boundary (audio), on the
    /// long-GOP grid, or as a keyframe once the segment has about its target length.
    private func cutsSegment(_ s: TrackSample, segmentLength: Int64, duration: Int64) -> Bool {
        if let tolerance = syncBoundaryTolerance {
            // Rung IDRs sit at the source's keyframes; B-frame sources put the source cut a few frames earlier in decode order.
            return s.isSync && boundaries.contains { abs($0 - s.dts) <= tolerance }
        }
        if followsBoundaries { return boundaries.first.map { s.dts + duration / 2 >= $0 } ?? false }
        if gridCuts || s.opensSegment { return s.opensSegment }
        // After an early first cut, the next keyframe opens a segment again, however short the one before.
        return s.isSync && (segmentLength >= segmentTarget - duration / 2 || !segmentStartedOnSync)
    }

    /// True when the segment must end before `s` though no cut came: EXTINF never exceeds TARGETDURATION.
    private func capsSegment(_ s: TrackSample, segmentLength: Int64, duration: Int64) -> Bool {
        guard syncBoundaryTolerance == nil, !followsBoundaries else { return false }
        // The grid is segment-target apart; the limit only guards against a grid that never came.
        if gridCuts { return segmentLength + duration > segmentLimit }
        // The next keyframe would come too late: cut short here so the segment still starts on an IDR.
        if s.isSync, let gop = gopEstimate, segmentLength + gop > segmentLimit { return true }
        // A GOP longer than the target: cut anyway.
        return segmentLength + duration > segmentLimit
    }

    /// Closes everything with the last known frame duration (publisher gone or timeline restarting).
    mutating func flush() -> [MuxedPart] {
        var out: [MuxedPart] = []
        if let p = pending {
            out += place(
                p,
                duration: lastDuration > 0 ? lastDuration : partTarget / 6,
                opensSegment: pendingOpensSegment
            )
            pending = nil
            pendingOpensSegment = false
        }
        if let part = closePart() { out.append(part) }
        segmentStart = nil
        segmentStartedOnSync = true
        partStartsSegment = true
        boundaries = []
        return out
    }

    /// Puts a sample whose duration is now known into the current part, cutting first where rules say.
    private mutating func place(_ s: TrackSample, duration: Int64, opensSegment decided: Bool) -> [MuxedPart] {
        var out: [MuxedPart] = []
        let segStart = segmentStart ?? s.dts
        let segLength = s.dts - segStart
        var newSegment = segmentStart == nil
        // The GOP that ends at this keyframe predicts the next one.
        if s.isSync && !followsBoundaries {
            if let last = lastSyncDTS { gopEstimate = s.dts - last }
            lastSyncDTS = s.dts
        }
        if !newSegment {
            if let tolerance = syncBoundaryTolerance { boundaries.removeAll { $0 < s.dts - tolerance } }
            let cut = cutsSegment(s, segmentLength: segLength, duration: duration)
            // A rung's boundary is used once.
            if cut && syncBoundaryTolerance != nil { boundaries.removeFirst() }
            newSegment = cut || capsSegment(s, segmentLength: segLength, duration: duration)
        }
        if followsBoundaries && syncBoundaryTolerance == nil { boundaries.removeAll { $0 <= s.dts + duration / 2 } }
        if decided || newSegment {
            if let part = closePart(endsSegment: true) { out.append(part) }
            segmentStart = s.dts
            segmentStartedOnSync = s.isSync
            partStartsSegment = true
            if !followsBoundaries && !decided { decidedBoundaries.append(s.dts) }
        } else if partDuration + duration > partTarget {
            if let part = closePart() { out.append(part) }
        }
        if partSamples.isEmpty { partStart = s.dts }
        partSamples.append(
            FMP4Sample(
                duration: UInt32(duration),
                compositionOffset: s.compositionOffset,
                isSync: s.isSync,
                data: s.data
            )
        )
        if let i = s.ingested { partIngested.append(i) }
        if let c = s.capture { partCaptured.append(c) }
        partDuration += duration
        // Publish as soon as another frame of the same length could not fit.
        if partDuration + duration > partTarget, let part = closePart() { out.append(part) }
        return out
    }

    private mutating func closePart(endsSegment: Bool = false) -> MuxedPart? {
        guard !partSamples.isEmpty else { return nil }
        sequenceNumber += 1
        let bytes = FMP4Fragment.serialize(
            sequenceNumber: sequenceNumber,
            trackID: trackID,
            baseMediaDecodeTime: UInt64(max(0, partStart)),
            samples: partSamples
        )
        let part = MuxedPart(
            startsSegment: partStartsSegment,
            endsSegment: endsSegment,
            startDTS: partStart,
            duration: partDuration,
            independent: partSamples[0].isSync && (!independentOnlyAtSegmentStarts || partStartsSegment),
            startsWithSync: partSamples[0].isSync,
            bytes: bytes,
            ingested: partIngested,
            captured: partCaptured,
            sampleCount: partSamples.count
        )
        partSamples = []
        partIngested = []
        partCaptured = []
        partDuration = 0
        partStartsSegment = false
        return part
    }
}
