import CodecFormats
import MediaCore

/// The source's keyframes are further apart than the segment target: why, and the grid its segments follow instead.
/// Carried by `PackagerEvent.longGOPDetected`, so the log line needs nothing more from the state.
struct LongGOPFinding: Sendable, Equatable, CustomStringConvertible {
    /// What showed the long GOP (the encoder's stated keyint, or a keyframe that did not come).
    var evidence: KeyframeCadence.Evidence
    /// Spacing of the grid the source's segments are cut on from now on.
    var gridTarget: Duration

    /// The evidence, as notes and logs quote it.
    var description: String { evidence.description }

    /// The grid spacing in seconds with one decimal (the log line's `segment_target_s`).
    var gridSeconds: String { KeyframeCadence.Evidence.format(gridTarget.secondsDouble) }

    /// Why segments do not follow the source's keyframes, for `/api/streams` and `sluice stats`; `replacedBy` is the
    /// rung transcoded at the source's size, when it replaces the passthrough.
    func note(replacedBy rung: String?) -> String {
        let top =
            if let rung {
                "rendition \(rung) (transcoded at the source size, IDRs every \(gridSeconds) s) replaces the passthrough"
            } else {
                "passthrough segments are cut every \(gridSeconds) s without a keyframe (no EXT-X-INDEPENDENT-SEGMENTS)"
            }
        return "source keyframe interval exceeds the \(gridSeconds) s segment target (\(evidence)): \(top)"
    }
}
