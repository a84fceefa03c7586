import HLSPlaylist
import MediaCore

/// What a recorder gets when a segment closes: carried by `PackagerEvent.segmentClosed`, so the stream hands it on
/// without reading the state again.
extension LLHLSStreamState {
    /// Segment `segment` of rendition `name` as a recorder keeps it, with its init section and the multivariant as
    /// served `now`; nil for a gap, and for the passthrough a bridged rung replaces (`recordedName(of:)`).
    func packagedSegment(_ segment: PublishedSegment, of name: String, now: ContinuousClock.Instant) -> PackagedSegment?
    {
        guard let recorded = recordedName(of: name), let r = pipeline(named: name)?.rendition, segment.complete,
            segment.gapDuration == nil, let initSection = r.initSections[segment.initIndex]
        else { return nil }
        var packaged = PackagedSegment(
            key: key,
            rendition: recorded,
            epoch: epoch,
            msn: segment.msn,
            duration: MediaTime(value: segment.duration, timescale: segment.timescale),
            discontinuity: segment.discontinuity,
            independent: segment.parts.first?.independent ?? false,
            initIndex: segment.initIndex,
            initSection: initSection,
            data: segment.buffer,
            programDateTime: segment.programDateTime,
            multivariant: multivariantPlaylist(now: now)?.render()
        )
        packaged.sourceRendition = listedSourceName
        return packaged
    }
}
