/// Who is on air on one key, as a value that returns what the channel must do: the primary, a hot-standby backup,
/// or the slate while neither sends. A publisher goes on air at a keyframe (`media`); a drop is a publisher leaving
/// or sending nothing for `failoverAfter`; the air ends after `grace` with nobody on it.
struct OnAirSwitch: Sendable {
    /// What is on air.
    enum Source: Sendable, Equatable, CustomStringConvertible {
        case seat(OnAirRole)
        case slate

        var description: String {
            switch self {
            case .seat(let role): role.rawValue
            case .slate: "slate"
            }
        }
    }

    /// Why the air changed hands, for the log line and `sluice_ingest_switches_total{reason}`.
    enum Reason: String, Sendable, Equatable {
        /// The on-air publisher disconnected.
        case left
        /// The on-air publisher sent nothing for `failoverAfter`.
        case stalled
        /// The backup went on air after the primary's drop.
        case takeover
        /// A publisher came back over the slate.
        case returned
        /// The primary took the air back from the backup.
        case failback
    }

    /// One change of who is on air.
    struct Change: Sendable, Equatable {
        var from: Source?
        /// Nil: nothing (the slate is off).
        var to: Source?
        var reason: Reason
    }

    /// What the channel does about a frame from a publisher.
    enum Verdict: Sendable, Equatable {
        /// It is on air: send it.
        case forward
        /// It puts its publisher on air: splice here, then send it.
        case splice(Change)
        /// Not on air.
        case drop
    }

    /// What the channel does after a tick or a departure.
    enum Action: Sendable, Equatable {
        /// The slate goes on air now.
        case startSlate(Change)
        /// Nothing is on air now (no slate); the air waits.
        case goDark(Change)
        /// The grace ran out with nobody on air: end the air.
        case end
        /// A publisher flaps: it waits `hold` before it may return.
        case holdOff(OnAirRole, hold: Duration, drops: Int)
    }

    /// How a publisher asking for a seat is answered.
    enum Arrival: Sendable, Equatable {
        case seated
        /// Seated in place of a publisher that sent nothing for `silent`: a connection the network never closed (an
        /// uplink that dropped without a FIN) whose encoder is reconnecting. The channel ends the old publication and
        /// carries out `actions` (the air leaves a stalled publisher no slate or backup had replaced).
        case replaced(silent: Duration, actions: [Action])
        /// The seat's publisher sends: the newcomer is refused.
        case refused
    }

    private struct Seat {
        /// When it took the seat.
        var since: ContinuousClock.Instant
        var lastMedia: ContinuousClock.Instant?
        /// Since when it has sent without a drop (nil while stalled or before its first frame).
        var healthySince: ContinuousClock.Instant?
        /// Its drops within the flap window, newest last.
        var drops: [ContinuousClock.Instant] = []
        /// It may go (back) on air only from this instant (a flapping publisher).
        var heldUntil: ContinuousClock.Instant?
    }

    let configuration: OnAirConfiguration
    private var seats: [OnAirRole: Seat] = [:]
    /// Drops remembered across reconnects (a publisher that leaves and comes back is the same flapping source).
    private var pastDrops: [OnAirRole: [ContinuousClock.Instant]] = [:]
    private(set) var onAir: Source?
    /// Since when nobody has published on the key (the grace runs from here); nil while someone does.
    private(set) var emptySince: ContinuousClock.Instant?
    /// Hand-overs so far (the first publisher going on air is not one).
    private(set) var switches = 0
    /// True once any publisher has been on air.
    private(set) var everOnAir = false
    /// When the slate last went on air (a publisher replaces it only after `minimumSlate`).
    private var slateSince: ContinuousClock.Instant?

    init(configuration: OnAirConfiguration) {
        self.configuration = configuration
    }

    /// The slate runs only with a grace to run in: without one the air has no gap to fill (it ends with its last
    /// publisher), and a stalled publisher's silence stays silence, as before the slate.
    private var slates: Bool { configuration.slate && configuration.grace > .zero }

    /// True while `role` has a publisher.
    func isSeated(_ role: OnAirRole) -> Bool { seats[role] != nil }

    /// True while nobody publishes on the key.
    var isEmpty: Bool { seats.isEmpty }

    /// A publisher that never sent media is silent only after this long (an encoder may take seconds to start).
    static let silentBeforeMediaLimit: Duration = .seconds(5)

    /// True when a publisher arriving in `role` now would be seated: the seat is free, or its publisher went silent.
    func admits(_ role: OnAirRole, now: ContinuousClock.Instant) -> Bool {
        guard let old = seats[role] else { return true }
        return now - (old.lastMedia ?? old.since) >= silenceLimit(of: old)
    }

    /// How long `seat`'s publisher may send nothing before a newcomer may take its seat.
    private func silenceLimit(of seat: Seat) -> Duration {
        seat.lastMedia == nil
            ? max(configuration.failoverAfter, Self.silentBeforeMediaLimit) : configuration.failoverAfter
    }

    /// A publisher asks for `role`: seated, seated in place of a silent one, or refused while the seat's one sends.
    mutating func arrived(_ role: OnAirRole, now: ContinuousClock.Instant) -> Arrival {
        var arrival = Arrival.seated
        if var old = seats[role] {
            guard admits(role, now: now) else { return .refused }
            let silent = now - (old.lastMedia ?? old.since)
            var actions: [Action] = []
            if onAir == .seat(role) {
                actions += recordDrop(role, &old, now: now)
                actions.append(goOffAir(from: .seat(role), reason: .stalled, now: now))
            }
            pastDrops[role] = old.drops
            arrival = .replaced(silent: silent, actions: actions)
        }
        var seat = Seat(since: now)
        seat.drops = pastDrops[role] ?? []
        seat.heldUntil = holdEnd(after: seat.drops, now: now)
        seats[role] = seat
        emptySince = nil
        return arrival
    }

    /// The publisher in `role` left; the air goes to the slate (or dark) until someone sends a keyframe.
    mutating func left(_ role: OnAirRole, now: ContinuousClock.Instant) -> [Action] {
        guard var seat = seats.removeValue(forKey: role) else { return [] }
        if seats.isEmpty {
            emptySince = now
            // Without a grace the air ends with its last publisher, as it always did.
            if configuration.grace == .zero { return [.end] }
        }
        guard onAir == .seat(role) else { return [] }
        var actions = recordDrop(role, &seat, now: now)
        pastDrops[role] = seat.drops
        actions.append(goOffAir(from: .seat(role), reason: .left, now: now))
        return actions
    }

    /// A frame from `role`'s publisher; `isSplicePoint` when a decoder can start at it (a video keyframe, or any
    /// frame of a stream without video).
    mutating func media(_ role: OnAirRole, isSplicePoint: Bool, now: ContinuousClock.Instant) -> Verdict {
        guard var seat = seats[role] else { return .drop }
        seat.lastMedia = now
        if seat.healthySince == nil { seat.healthySince = now }
        seats[role] = seat
        if onAir == .seat(role) { return .forward }
        if !everOnAir {
            // The first publisher is on air from its first frame, as without a standby.
            everOnAir = true
            onAir = .seat(role)
            return .forward
        }
        guard isSplicePoint, wanted(now: now) == .seat(role) else { return .drop }
        if onAir == .slate, let since = slateSince, now - since < configuration.minimumSlate { return .drop }
        let reason: Reason =
            switch (role, onAir) {
            case (.primary, .seat(.backup)): .failback
            case (.backup, _): .takeover
            default: .returned
            }
        let change = Change(from: onAir, to: .seat(role), reason: reason)
        onAir = .seat(role)
        switches += 1
        return .splice(change)
    }

    /// Time passes: a stalled on-air publisher drops off air when something can take its place (the slate, or a
    /// backup that sends); the grace may run out.
    mutating func tick(now: ContinuousClock.Instant) -> [Action] {
        var actions: [Action] = []
        for (role, var seat) in seats {
            guard let last = seat.lastMedia, seat.healthySince != nil, now - last >= configuration.failoverAfter
            else { continue }
            seat.healthySince = nil
            seats[role] = seat
        }
        if case .seat(let role)? = onAir, var seat = seats[role], seat.healthySince == nil, seat.lastMedia != nil,
            slates || eligible(role == .primary ? .backup : .primary, now: now)
        {
            actions += recordDrop(role, &seat, now: now)
            seats[role] = seat
            actions.append(goOffAir(from: .seat(role), reason: .stalled, now: now))
        }
        if let since = emptySince, now - since >= configuration.grace { actions.append(.end) }
        return actions
    }

    /// The source that should be on air now: the primary over the backup (the backup keeps the air under manual
    /// failback), a publisher over the slate.
    func wanted(now: ContinuousClock.Instant) -> Source? {
        let primary = eligible(.primary, now: now)
        let backup = eligible(.backup, now: now)
        if primary, !(configuration.failback == .manual && onAir == .seat(.backup) && backup) { return .seat(.primary) }
        if backup { return .seat(.backup) }
        return slates ? .slate : nil
    }

    /// A publisher that sends, is not held off for flapping.
    private func eligible(_ role: OnAirRole, now: ContinuousClock.Instant) -> Bool {
        guard let seat = seats[role], seat.healthySince != nil else { return false }
        if let until = seat.heldUntil, now < until { return false }
        return true
    }

    private mutating func goOffAir(from: Source, reason: Reason, now: ContinuousClock.Instant) -> Action {
        switches += 1
        if slates {
            onAir = .slate
            slateSince = now
            return .startSlate(Change(from: from, to: .slate, reason: reason))
        }
        onAir = nil
        return .goDark(Change(from: from, to: nil, reason: reason))
    }

    /// Counts a drop; a publisher past the flap limit is held off air for a doubling time.
    private func recordDrop(_ role: OnAirRole, _ seat: inout Seat, now: ContinuousClock.Instant) -> [Action] {
        seat.drops = seat.drops.filter { now - $0 < configuration.flapWindow } + [now]
        guard let until = holdEnd(after: seat.drops, now: now) else { return [] }
        seat.heldUntil = until
        return [.holdOff(role, hold: until - now, drops: seat.drops.count)]
    }

    /// When a publisher with `drops` (recent) may return: at once below the flap limit, else after a doubling hold.
    private func holdEnd(
        after drops: [ContinuousClock.Instant],
        now: ContinuousClock.Instant
    ) -> ContinuousClock.Instant? {
        let recent = drops.filter { now - $0 < configuration.flapWindow }.count
        guard recent >= configuration.flapLimit else { return nil }
        let doublings = min(recent - configuration.flapLimit, 3)
        return now + configuration.flapHold * (1 << doublings)
    }
}
