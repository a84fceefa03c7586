import MediaCore

/// A load-shedding step of one stream's ladder, told to whoever lists the renditions (the packager).
public struct LadderShedEvent: Sendable, Hashable {
    /// What happened to the rung.
    public enum Step: Sendable, Hashable {
        /// The rung encodes with a faster x264 preset.
        case fasterPreset(String)
        /// The rung is back on the configured preset.
        case normalPreset(String)
        /// The rung is no longer encoded: leave it out of the multivariant and the rendition reports.
        case leftOut
        /// The rung is encoded again from its next IDR: list it again once it has media.
        case listedAgain
        /// The rung cannot keep up right now (its queue is deep, it drops pictures, or the decoder is behind): do not
        /// wait for it. Not a shedding step: no log line or metric.
        case fellBehind
        /// The rung keeps up again: renditions may be listed in step with it.
        case keepsUp
    }

    /// The source stream.
    public var source: StreamKey
    /// Rendition name of the rung.
    public var rung: String
    /// The step.
    public var step: Step
    /// Why, in words (the log line's reason).
    public var reason: String

    /// The step's name in metrics (`step` label).
    public var stepName: String {
        switch step {
        case .fasterPreset: "faster_preset"
        case .normalPreset: "normal_preset"
        case .leftOut: "drop"
        case .listedAgain: "restore"
        case .fellBehind: "behind"
        case .keepsUp: "keeps_up"
        }
    }
}
