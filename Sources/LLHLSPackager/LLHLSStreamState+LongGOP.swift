import CodecFormats
import FMP4
import MediaCore

/// A source whose keyframes are further apart than the segment target (OBS's default keyframe interval "auto" is
/// 250 frames): the source is cut on a segment-target grid so no EXTINF exceeds TARGETDURATION, the ladder forces its
/// rung IDRs on the same grid, and a rung at the source's resolution replaces the passthrough in the multivariant.
extension LLHLSStreamState {
    /// Feeds one source video frame to the session's cadence; true when the grid opens a segment at it.
    mutating func followSourceCadence(_ frame: MediaFrame, dts: Int64, muxer: inout RenditionMuxer) -> Bool {
        if cadence == nil {
            cadence = KeyframeCadence(
                target: gridTarget,
                frameRate: description?.video?.frameRate,
                trustsEncoderSettings: !(description?.video?.keyframesOnRequest ?? false)
            )
        }
        if let found = cadence?.observe(time: dts, isKeyframe: frame.isKeyframe, data: frame.data) {
            longGOP = found
            longGOPNotice = found
            muxer.gridCuts = true
        }
        return cadence?.opensSegment(at: dts) ?? false
    }

    /// Spacing of the long-GOP grid (shared with the ladder through `KeyframeCadence.gridTarget`).
    var gridTarget: Duration { KeyframeCadence.gridTarget(forSegmentTarget: config.segmentTarget) }

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

    /// Renditions the multivariant lists (and rendition reports name): every one, except the passthrough `video`
    /// when a rung at the source's size replaces it (its segments cannot start on the source's rare keyframes), and
    /// rungs shed under load (+Shedding).
    var listedRenditions: [String] {
        let replaced = sourceResolutionRung != nil
        return pipelineNames.filter { !(replaced && $0 == "video") && !isUnlisted($0) }
    }

    /// Why segments do not follow the source's keyframes, for `/api/streams` and `sluice stats`.
    var longGOPNote: String? {
        guard let longGOP else { return nil }
        let target = KeyframeCadence.Evidence.format(gridTarget.secondsDouble)
        let top =
            if let rung = sourceResolutionRung {
                "rendition \(rung) (transcoded at the source size, IDRs every \(target) s) replaces the passthrough"
            } else {
                "passthrough segments are cut every \(target) s without a keyframe (no EXT-X-INDEPENDENT-SEGMENTS)"
            }
        return "source keyframe interval exceeds the \(target) s segment target (\(longGOP)): \(top)"
    }

    /// The log line when a session's long GOP is found (the ladder logs its own choice of top rendition).
    var longGOPLogLine: String? {
        guard let longGOP else { return nil }
        let target = KeyframeCadence.Evidence.format(gridTarget.secondsDouble)
        return "source keyframe interval exceeds the \(target) s segment target (\(longGOP)): cutting segments every "
            + "\(target) s; ladder rungs get IDRs there, the passthrough's segments start without a keyframe "
            + "(set the encoder's keyframe interval to 1-2 s to avoid this)"
    }
}
