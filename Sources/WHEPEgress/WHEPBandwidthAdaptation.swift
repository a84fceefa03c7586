/// When a viewer's receiver estimate (REMB, draft-alvestrand-rmcat-remb-03) says it cannot take its own rendition, it
/// steps down onto a lower ladder rung, and it steps back up once the estimate allows. A value fed every estimate;
/// the service carries out what it returns (`WHEPJoinSwitch` does the switch at the next keyframe).
///
/// - Down: the estimate stays under `downRatio` × the bit rate it is sent for `downAfter` (two estimates at least,
///   so one dip does not cost a switch).
/// - Up: the estimate covers `upRatio` × the own rendition's bit rate for `upAfter`. A receiver's estimate grows to
///   about 1.5 × what it receives (libwebrtc's AIMD cap), so a rung half the own rendition's rate never proves room
///   for it: after `probeWait` on the rung with the estimate at least `probeRatio` × what it receives (the link is not
///   congested now: an overused link gets ~0.85 × its throughput; Chromium behind a freed one estimated 1.05–1.3 ×
///   what it received), the viewer tries its own rendition again; a try that steps down within `failedProbeWithin` doubles the wait (up to `maxProbeWait`).
/// - After a step up the estimate ramps (libwebrtc's AIMD adds ~8 % a second: from 0.4 to 0.85 × the own rendition
///   takes ~10 s), so until it first reaches `downRatio` × what it is sent (at most `maxRamp`), it steps down only
///   when the estimate falls under `rampDrop` × its peak since the step up (the receiver saw the link overuse).
struct WHEPBandwidthAdaptation: Sendable, Equatable {
    /// What to do after an estimate.
    enum Action: Sendable, Equatable {
        case stay
        /// Move onto the highest lower rung that fits `estimate` (bits per second).
        case stepDown(estimate: Double)
        /// Move back onto the own rendition.
        case stepUp
    }

    var downRatio = 0.85
    var downAfter: Duration = .seconds(1)
    var upRatio = 1.2
    var upAfter: Duration = .seconds(2)
    var probeRatio = 0.95
    var failedProbeWithin: Duration = .seconds(10)
    var maxProbeWait: Duration = .seconds(120)
    var maxRamp: Duration = .seconds(30)
    var rampDrop = 0.9
    /// The highest estimate since it last stepped up, while it ramps (nil: not ramping).
    private(set) var rampPeak: Double?
    /// How long the viewer stays on the rung before it tries its own rendition again (doubles after a failed try).
    private(set) var probeWait: Duration

    /// When the condition for the next move started to hold (nil: it does not hold now).
    private(set) var holdingSince: ContinuousClock.Instant?
    private(set) var steppedDownAt: ContinuousClock.Instant?
    private(set) var steppedUpAt: ContinuousClock.Instant?

    init(probeWait: Duration = .seconds(15)) {
        self.probeWait = probeWait
    }

    /// One estimate at `now`. `sent`: the bit rate of what the viewer receives now (nil until measured); `own`: its
    /// own rendition's; `onLower`: it is on a lower rung; `canStepDown`: a lower rung exists and no switch is under way.
    mutating func estimate(
        _ estimate: Double,
        now: ContinuousClock.Instant,
        sent: Double?,
        own: Double?,
        onLower: Bool,
        canStepDown: Bool
    ) -> Action {
        guard let sent, sent > 0 else {
            holdingSince = nil
            return .stay
        }
        let holds: Bool
        let after: Duration
        if onLower {
            let covered = own.map { estimate >= upRatio * $0 } ?? false
            let probing = steppedDownAt.map { now - $0 >= probeWait } ?? true
            holds = covered || (probing && estimate >= probeRatio * sent)
            after = upAfter
        } else {
            if estimate >= downRatio * sent || steppedUpAt.map({ now - $0 >= maxRamp }) ?? true { rampPeak = nil }
            let fell = rampPeak.map { estimate < rampDrop * $0 } ?? true
            if let peak = rampPeak { rampPeak = max(peak, estimate) }
            holds = canStepDown && estimate < downRatio * sent && fell
            after = downAfter
        }
        guard holds else {
            holdingSince = nil
            return .stay
        }
        guard let since = holdingSince else {
            holdingSince = now
            return .stay
        }
        guard now - since >= after else { return .stay }
        holdingSince = nil
        if onLower {
            steppedUpAt = now
            rampPeak = estimate
            return .stepUp
        }
        // Back down soon after a try: the own rendition still does not fit, so the next try waits longer.
        if let up = steppedUpAt, now - up < failedProbeWithin { probeWait = min(probeWait * 2, maxProbeWait) }
        steppedDownAt = now
        return .stepDown(estimate: estimate)
    }

    /// The rung to step down to: the highest whose bit rate fits `downRatio` × `estimate`, else the lowest (rates
    /// unknown count as fitting nothing); nil when there is none.
    func target<Rung>(among rungs: [(rung: Rung, bitRate: Double?)], estimate: Double) -> Rung? {
        rungs.first { ($0.bitRate ?? .infinity) <= downRatio * estimate }?.rung ?? rungs.last?.rung
    }
}
