import MediaCore

/// A change on a key's air, for the gateway's log line and `sluice_ingest_switches_total{reason}`.
public struct OnAirSwitchEvent: Sendable, Equatable {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// The air went from one source to another (`primary`, `backup`, `slate`; nil: nothing) because of `reason`
        /// (`left`, `stalled`, `takeover`, `returned`, `failback`).
        case switched(from: String?, to: String?, reason: String)
        /// A new `role` publisher took the seat of session `session`, which had sent nothing for `silent` (its
        /// connection never closed: an uplink that dropped without a word, its encoder reconnecting).
        case replaced(role: OnAirRole, silent: Duration, session: String)
        /// A flapping publisher (`drops` within the window) waits `hold` before it may go back on air.
        case heldOff(role: OnAirRole, hold: Duration, drops: Int)
        /// A `role` publisher's `track` jumped from `from` to `to` (its own times): from there every track of it is
        /// moved by `offset`, so the air's timeline goes on without going back.
        case rebased(role: OnAirRole, track: MediaKind, from: MediaTime, to: MediaTime, offset: MediaTime)
    }

    /// The stream.
    public let key: StreamKey
    /// What happened.
    public let kind: Kind
    /// Hand-overs on this key so far.
    public let switches: Int
}

/// Who is on a key's air, for `/api/streams`.
public struct OnAirStatus: Sendable, Equatable {
    /// `primary`, `backup` or `slate`; nil before the first frame and while dark.
    public let onAir: String?
    /// Hand-overs so far.
    public let switches: Int
    /// True while a primary publisher is connected.
    public let primary: Bool
    /// True while a backup publisher is connected.
    public let backup: Bool
}
