import CodecFormats
import FMP4
import MediaCore

/// What the multivariant lists, the stream-wide TARGETDURATION, and the long-GOP notes, from the pieces.
///
/// A source whose keyframes are further apart than the segment target (OBS's default keyframe interval "auto" is
/// 250 frames) is cut on a segment-target grid so no EXTINF exceeds TARGETDURATION, the ladder forces its rung IDRs
/// on the same grid, and a rung at the source's resolution replaces the passthrough in the multivariant.
extension LLHLSStreamState {
    /// The listing decision's inputs as they are now.
    var listing: RenditionListing {
        let names = pipelineNames
        let leadSegments = (video ?? audio)?.rendition.segments ?? []
        let firstComplete = leadSegments.firstIndex(where: \.complete)
        return RenditionListing(
            renditions: names,
            lead: video == nil ? "audio" : "video",
            started: Set(names.filter { pipeline(named: $0)?.hasFirstMedia ?? false }),
            sourceReplaced: sourceResolutionRung != nil,
            leadFirstCompleted: firstComplete.flatMap { leadSegments[$0].parts.last?.published },
            ended: isEnded,
            withdrawn: withdrawnRungs.union(returningRungs),
            replacementDue: config.awaitsSourceRung && grid.longGOP != nil && !rungs.isEmpty
                && sourceResolutionRung == nil && bridgedRung == nil
        )
    }

    /// Renditions the multivariant lists (and rendition reports name).
    var listedRenditions: [String] { listing.listed }

    /// Renditions the multivariant lists now, or nil while it should still wait (see `RenditionListing`).
    func servedRenditions(now: ContinuousClock.Instant) -> [String]? { listing.served(now: now) }

    /// EXT-X-TARGETDURATION of every playlist of the stream.
    var targetDuration: Int {
        grid.decidedTargetDuration ?? (video == nil ? config.targetDurationSeconds : grid.provisionalTargetDuration)
    }

    /// The rung transcoded at the source's own size: the ladder's top rendition when it replaces the passthrough.
    var sourceResolutionRung: String? {
        guard let source = description?.video else { return nil }
        for name in rungs.keys.sorted() {
            if case .video(let v) = rungs[name]?.parameters, v.width == source.width, v.height == source.height {
                return name
            }
        }
        return nil
    }

    /// The rung that bridged the source's first keyframe interval (fast start) and carries its frames after it: it
    /// is the source's rendition, so players know it as `video` (the ladder's contract: the source is `video.m3u8`).
    var bridgedRung: String? {
        grid.bridgedFirstKeyframeInterval ? keptBridgedRung ?? sourceResolutionRung : nil
    }

    /// The name players know rendition `name` by: `video` for the bridged rung, else its own.
    func servedName(_ name: String) -> String { name == bridgedRung ? "video" : name }

    /// The name a recording keeps rendition `name` under, as players know it; nil for the passthrough the bridged rung
    /// replaces (the recording mirrors the live multivariant, which lists the rung as `video`).
    func recordedName(of name: String) -> String? {
        if name == "video", bridgedRung != nil { return nil }
        return servedName(name)
    }

    /// What the multivariant lists for the source's video, by the name it lists it under.
    var listedSourceName: String { bridgedRung == nil ? (sourceResolutionRung ?? "video") : "video" }

    /// The rendition a player's name `name` asks for: `video` is the bridged rung while there is one.
    func pipelineName(served name: String) -> String { name == "video" ? (bridgedRung ?? name) : name }

    /// Why segments do not follow the source's keyframes, for `/api/streams` and `sluice stats`.
    var longGOPNote: String? {
        grid.longGOP.map {
            LongGOPFinding(evidence: $0, gridTarget: grid.gridTarget).note(replacedBy: sourceResolutionRung)
        }
    }
}
