import HLSPlaylist
import MediaCore

/// What rendering a media playlist needs besides the rendition itself.
struct PlaylistContext: Sendable {
    /// Path segment that makes media URIs unique per stream instance (CDN-safe).
    var epoch: String
    /// EXT-X-TARGETDURATION.
    var targetDuration: Int
    /// PART-TARGET in this rendition's ticks; nil renders classic HLS (segments only, no hint).
    var partTarget: MediaTime?
    /// SERVER-CONTROL shared by all renditions; nil for classic HLS.
    var serverControl: ServerControl?
    /// Complete segments listed.
    var window: Int
    /// Reports for the other renditions.
    var reports: [RenditionReport]
    /// Stream ended: ENDLIST, no hint.
    var ended: Bool
    /// The name media URIs carry when players know the rendition by another (`LLHLSStreamState.servedName`).
    var servedName: String? = nil
}

extension PublishedRendition {
    /// URI of a part relative to the media playlist.
    func partURI(_ ctx: PlaylistContext, msn: Int, part: Int) -> String { uri(ctx, .part(msn, part)) }
    /// URI of a segment relative to the media playlist.
    func segmentURI(_ ctx: PlaylistContext, msn: Int) -> String { uri(ctx, .segment(msn)) }
    /// URI of an init section relative to the media playlist.
    func initURI(_ ctx: PlaylistContext, index: Int) -> String { uri(ctx, .initSection(index)) }
    /// `{epoch}/{rendition}/{file}`: the form the origin routes and `MediaFileName` reads back.
    private func uri(_ ctx: PlaylistContext, _ file: MediaFileName) -> String {
        "\(ctx.epoch)/\(ctx.servedName ?? name)/\(file)"
    }

    /// Where the next part will appear (the preload hint).
    var nextPartPosition: (msn: Int, part: Int) {
        if let last = segments.last, !last.complete, !last.parts.isEmpty { return (last.msn, last.parts.count) }
        return (nextMSN, 0)
    }

    /// Builds the playlist model.
    func playlist(_ ctx: PlaylistContext) -> MediaPlaylist {
        let complete = segments.filter(\.complete)
        let listedComplete = complete.suffix(ctx.window)
        var listed = Array(listedComplete)
        let lowLatency = ctx.partTarget != nil
        if lowLatency, let open = segments.last, !open.complete, !open.parts.isEmpty { listed.append(open) }
        let firstListedMSN = listed.first?.msn ?? nextMSN
        let hiddenDiscontinuities = segments.filter { $0.msn < firstListedMSN && $0.discontinuity }.count
        // Parts stay listed for about the last 3 × TARGETDURATION (checklist P5).
        let partHorizon = max(0, listedComplete.count - 3)
        var model: [MediaSegment] = []
        var lastInit: Int?
        for (i, s) in listed.enumerated() {
            let parts: [MediaPart] =
                lowLatency && (i >= partHorizon || !s.complete)
                ? s.parts.enumerated().map { j, p in
                    MediaPart(
                        duration: MediaTime(value: p.duration, timescale: s.timescale),
                        uri: partURI(ctx, msn: s.msn, part: j),
                        independent: p.independent
                    )
                } : []
            let map = (lastInit != s.initIndex) ? initURI(ctx, index: s.initIndex) : nil
            lastInit = s.initIndex
            model.append(
                MediaSegment(
                    mediaSequence: s.msn,
                    duration: MediaTime(value: s.declaredDuration, timescale: s.timescale),
                    uri: s.complete ? segmentURI(ctx, msn: s.msn) : nil,
                    parts: parts,
                    discontinuity: s.discontinuity,
                    programDateTime: s.programDateTime,
                    mapURI: map,
                    gap: s.gapDuration != nil
                )
            )
        }
        let hint = nextPartPosition
        return MediaPlaylist(
            targetDuration: ctx.targetDuration,
            partTarget: ctx.partTarget,
            serverControl: ctx.serverControl,
            mediaSequence: firstListedMSN,
            discontinuitySequence: discontinuitySequence + hiddenDiscontinuities,
            segments: model,
            preloadHintURI: ctx.ended || !lowLatency ? nil : partURI(ctx, msn: hint.msn, part: hint.part),
            renditionReports: ctx.reports,
            endList: ctx.ended,
            independentSegments: false
        )
    }

    /// The report other renditions carry about this one.
    func report(uri: String) -> RenditionReport? {
        guard let last = lastPart else { return nil }
        return RenditionReport(uri: uri, lastMSN: last.msn, lastPart: last.part)
    }
}
