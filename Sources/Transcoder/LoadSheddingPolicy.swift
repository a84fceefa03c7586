/// How the ladder sheds load when it cannot keep up with the source (`transcode.shed.*`), in this order:
/// 1. the rung that fell behind encodes with `fastPreset`;
/// 2. if the ladder is still behind, the lowest-value rung is no longer encoded and leaves the multivariant (middle
///    rungs most expensive first, the lowest rung last; the top rendition never).
/// When every queue has stayed low for `recovery`, the last step is undone (a dropped rung first, then its preset);
/// a step taken again within `maxRecovery` of an undo doubles the wait, up to `maxRecovery`.
public struct LoadSheddingPolicy: Sendable, Hashable {
    /// Shed at all (`transcode.shed.enabled`); off, a rung that cannot keep up drops pictures up to its next IDR.
    public var enabled = true
    /// Preset of a rung that fell behind (`transcode.shed.preset`); nil skips the preset step. superfast keeps the
    /// SPS/PPS of veryfast byte for byte (no new init section, no DISCONTINUITY); ultrafast would change the profile.
    public var fastPreset: String? = "superfast"
    /// How long a queue must stay behind before a step (`transcode.shed.patience_s`); each step waits this long again.
    public var patience: Duration = .seconds(2)
    /// How long every queue must stay low before a step is undone (`transcode.shed.recovery_s`).
    public var recovery: Duration = .seconds(10)
    /// Longest recovery wait after repeated re-shedding of the same load.
    public var maxRecovery: Duration = .seconds(120)

    /// The default policy.
    public init() {}
}
