import MediaCore

/// One sample on a rendition's track timeline (ticks of the track timescale).
struct TrackSample: Sendable {
    /// Decode time in track ticks.
    var dts: Int64
    /// Presentation minus decode time, track ticks.
    var compositionOffset: Int32
    /// IDR (video) or any audio frame.
    var isSync: Bool
    /// Sample bytes (AVCC or raw AAC).
    var data: [UInt8]
    /// When the frame reached the packager's input (ingested, or encoded for a rung): the package hop starts here.
    var ingested: ContinuousClock.Instant?
    /// Publisher capture clock (SEI), for the available hop.
    var capture: WallTime? = nil
    /// A long-GOP source's grid puts a segment start here (see `KeyframeCadence`), keyframe or not.
    var opensSegment = false
}

/// A finished part as the muxer emits it.
struct MuxedPart: Sendable {
    /// True when this part begins a new segment.
    var startsSegment: Bool
    /// True when this part is its segment's last: the segment completes as it is listed, not a part later.
    var endsSegment = false
    /// First sample's decode time, track ticks.
    var startDTS: Int64
    /// Sum of sample durations, track ticks.
    var duration: Int64
    /// Its first sample is a sync sample (IDR, or any audio frame).
    var startsWithSync: Bool
    /// Audio beside video: INDEPENDENT only where a segment opens (`RenditionMuxer.independentOnlyAtSegmentStarts`).
    var independentOnlyAtSegmentStarts = false
    /// moof + mdat bytes.
    var bytes: [UInt8]
    /// Ingest instants of the samples inside (for the package hop).
    var ingested: [ContinuousClock.Instant]
    /// Capture clocks of the samples that carried one (for the available hop).
    var captured: [WallTime] = []
    /// Samples inside.
    var sampleCount = 0

    /// The one rule for EXT-X-PART INDEPENDENT: its first sample is a sync sample, and for audio beside video it
    /// also opens a segment (where the muxer cut, or where the rendition opens one after a flush).
    func isIndependent(opensSegment: Bool) -> Bool {
        startsWithSync && (!independentOnlyAtSegmentStarts || opensSegment)
    }

    /// INDEPENDENT as the muxer cut it (a rendition that opens a segment here lists `isIndependent(opensSegment:)`).
    var independent: Bool { isIndependent(opensSegment: startsSegment) }
}
