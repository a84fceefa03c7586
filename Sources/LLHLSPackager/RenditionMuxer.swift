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
    /// Where segments are cut (`fixedGrid` from the moment the source's keyframes prove too far apart).
    var cutPolicy: CutPolicy
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
        cutPolicy: CutPolicy
    ) {
        self.trackID = trackID
        self.timescale = timescale
        self.partTarget = partTarget
        self.segmentTarget = segmentTarget
        self.segmentLimit = segmentLimit
        self.cutPolicy = cutPolicy
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
            judge(sample, segmentLength: sample.dts - segStart, duration: lastDuration, placing: false).cut
        else { return out }
        // The segment ends before this sample: close its last part now and say so, a part earlier than its successor.
        pendingOpensSegment = true
        if cutPolicy.decidesBoundaries { decidedBoundaries.append(sample.dts) }
        if let part = closePart(endsSegment: true) {
            out.append(part)
        } else if !out.isEmpty {
            out[out.count - 1].endsSegment = true
        }
        return out
    }

    /// The one place `cutPolicy` is read: whether `s` (lasting `duration`, `segmentLength` into the open segment, nil
    /// when none is open) opens a segment by the policy (`cut`), or must though no cut came (`cap`: EXTINF never
    /// exceeds TARGETDURATION). `placing` (the sample goes into a part now) also updates what the policy keeps:
    /// the boundaries the sample used or passed, and the GOP the keyframe ends.
    private mutating func judge(
        _ s: TrackSample,
        segmentLength: Int64?,
        duration: Int64,
        placing: Bool
    ) -> (cut: Bool, cap: Bool) {
        switch cutPolicy {
        case .rung(let tolerance):
            guard segmentLength != nil else { return (false, false) }
            if placing { boundaries.removeAll { $0 < s.dts - tolerance } }
            // Rung IDRs sit at the source's keyframes; B-frame sources put the source cut a few frames earlier.
            let cut = s.isSync && boundaries.contains { abs($0 - s.dts) <= tolerance }
            // A rung's boundary is used once.
            if cut && placing { boundaries.removeFirst() }
            return (cut, false)
        case .followsVideo:
            // A frame ending past video's boundary, or within a millisecond of it, opens the segment: audio never ends
            // at or past video's edge (hls.js 1.6 sets MediaSource.duration to that edge at start-up, hls.js#7321).
            let margin = Int64(CutPolicy.audioShortOfVideo.secondsDouble * Double(timescale))
            let cut = segmentLength != nil && (boundaries.first.map { s.dts + duration > $0 - margin } ?? false)
            if placing { boundaries.removeAll { $0 - margin < s.dts + duration } }
            return (cut, false)
        case .fixedGrid:
            guard let length = segmentLength else { return (false, false) }
            // The grid is segment-target apart; the limit only guards against a grid that never came.
            return (s.opensSegment, length + duration > segmentLimit)
        case .sourceKeyframes:
            // The GOP that ends at this keyframe predicts the next one.
            if placing && s.isSync {
                if let last = lastSyncDTS { gopEstimate = s.dts - last }
                lastSyncDTS = s.dts
            }
            guard let length = segmentLength else { return (false, false) }
            // After an early first cut, the next keyframe opens a segment again, however short the one before.
            let cut =
                s.opensSegment || (s.isSync && (length >= segmentTarget - duration / 2 || !segmentStartedOnSync))
            // The next keyframe would come too late: cut short here so the segment still starts on an IDR; a GOP
            // longer than the target is cut anyway.
            let late = s.isSync && gopEstimate.map { length + $0 > segmentLimit } ?? false
            return (cut, late || length + duration > segmentLimit)
        }
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
        let judged = judge(s, segmentLength: segmentStart.map { s.dts - $0 }, duration: duration, placing: true)
        let newSegment = segmentStart == nil || judged.cut || judged.cap
        if decided || newSegment {
            if let part = closePart(endsSegment: true) { out.append(part) }
            segmentStart = s.dts
            segmentStartedOnSync = s.isSync
            partStartsSegment = true
            if cutPolicy.decidesBoundaries && !decided { decidedBoundaries.append(s.dts) }
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
            startsWithSync: partSamples[0].isSync,
            independentOnlyAtSegmentStarts: independentOnlyAtSegmentStarts,
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
