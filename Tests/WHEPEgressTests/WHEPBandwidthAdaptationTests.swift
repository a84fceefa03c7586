import Testing

@testable import WHEPEgress

/// When a viewer's receiver estimate moves it down to a lower rung and back up (REMB, draft-alvestrand-rmcat-remb-03).
struct WHEPBandwidthAdaptationTests {
    static let t0 = ContinuousClock.now

    static func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }

    /// Down only after the estimate stayed under 85 % of what is sent for a second; one estimate back over resets it;
    /// up once the estimate covers 1.2 × the own rendition for two seconds.
    @Test func goldenDownAndUp() {
        var a = WHEPBandwidthAdaptation()
        // (ms, estimate kb/s, sent kb/s, own kb/s, on a lower rung, expected)
        let steps: [(Int, Double, Double?, Double?, Bool, WHEPBandwidthAdaptation.Action)] = [
            (0, 3_000, nil, nil, false, .stay),  // nothing measured yet
            (1_000, 1_500, 2_000, 2_000, false, .stay),  // under 1 700: the clock starts
            (1_500, 1_800, 2_000, 2_000, false, .stay),  // back over: reset
            (2_000, 1_200, 2_000, 2_000, false, .stay),
            (2_900, 1_100, 2_000, 2_000, false, .stay),  // 0.9 s under
            (3_000, 1_000, 2_000, 2_000, false, .stepDown(estimate: 1_000_000)),
            (4_000, 900, 700, 2_000, true, .stay),
            (5_000, 2_500, 700, 2_000, true, .stay),  // covers 2 400: the clock starts
            (6_000, 2_450, 700, 2_000, true, .stay),
            (7_000, 2_600, 700, 2_000, true, .stepUp),
        ]
        for (n, (ms, estimate, sent, own, onLower, expected)) in steps.enumerated() {
            let action = a.estimate(
                estimate * 1_000,
                now: Self.at(ms),
                sent: sent.map { $0 * 1_000 },
                own: own.map { $0 * 1_000 },
                onLower: onLower,
                canStepDown: !onLower
            )
            #expect(action == expected, "step \(n)")
        }
    }

    /// An estimate that never proves room for the own rendition (it grows to ~1.5 × what it receives) tries it after
    /// the probe wait; a try that falls back within 10 s doubles the next wait; a ramping estimate right after a step
    /// up does not step down.
    @Test func probesUpAndBacksOff() {
        var a = WHEPBandwidthAdaptation(probeWait: .seconds(15))
        func feed(_ ms: Int, _ estimate: Double, sent: Double, onLower: Bool) -> WHEPBandwidthAdaptation.Action {
            a.estimate(estimate, now: Self.at(ms), sent: sent, own: 2_000_000, onLower: onLower, canStepDown: !onLower)
        }
        #expect(feed(0, 1_000_000, sent: 2_000_000, onLower: false) == .stay)
        #expect(feed(1_000, 1_000_000, sent: 2_000_000, onLower: false) == .stepDown(estimate: 1_000_000))
        // On the 700 kb/s rung the estimate climbs to 1 000 kb/s: over 1.2 × 700, short of 2 400.
        #expect(feed(5_000, 1_000_000, sent: 700_000, onLower: true) == .stay)
        #expect(feed(14_000, 1_000_000, sent: 700_000, onLower: true) == .stay)
        #expect(feed(16_000, 1_000_000, sent: 700_000, onLower: true) == .stay)
        #expect(feed(18_000, 1_000_000, sent: 700_000, onLower: true) == .stepUp)
        // Ramping after the step up (the estimate grows from where it was) is no reason to go back down.
        #expect(feed(19_000, 1_100_000, sent: 2_000_000, onLower: false) == .stay)
        #expect(feed(20_000, 1_200_000, sent: 2_000_000, onLower: false) == .stay)
        // The try fails: the estimate falls under 90 % of where it was; down again, and the next try waits 30 s.
        #expect(feed(21_000, 850_000, sent: 2_000_000, onLower: false) == .stay)
        #expect(feed(22_000, 800_000, sent: 2_000_000, onLower: false) == .stepDown(estimate: 800_000))
        #expect(a.probeWait == .seconds(30))
        #expect(feed(40_000, 1_000_000, sent: 700_000, onLower: true) == .stay)
        #expect(feed(50_000, 1_000_000, sent: 700_000, onLower: true) == .stay)
        #expect(feed(53_000, 1_000_000, sent: 700_000, onLower: true) == .stay)
        #expect(feed(55_000, 1_000_000, sent: 700_000, onLower: true) == .stepUp)
        // A slow ramp is no reason to go down; a fall from its peak is.
        #expect(feed(66_000, 1_500_000, sent: 2_000_000, onLower: false) == .stay)
        #expect(feed(70_000, 1_600_000, sent: 2_000_000, onLower: false) == .stay)
        #expect(feed(71_000, 1_400_000, sent: 2_000_000, onLower: false) == .stay)
        #expect(feed(72_000, 1_400_000, sent: 2_000_000, onLower: false) == .stepDown(estimate: 1_400_000))
    }

    /// The probe needs an uncongested rung: an estimate under what it receives keeps it there.
    @Test func noProbeWhileTheRungItselfIsCongested() {
        var a = WHEPBandwidthAdaptation(probeWait: .seconds(5))
        _ = a.estimate(500_000, now: Self.at(0), sent: 2e6, own: 2e6, onLower: false, canStepDown: true)
        #expect(
            a.estimate(500_000, now: Self.at(1_000), sent: 2e6, own: 2e6, onLower: false, canStepDown: true) != .stay
        )
        for ms in stride(from: 7_000, through: 20_000, by: 1_000) {
            let action = a.estimate(
                650_000,
                now: Self.at(ms),
                sent: 700_000,
                own: 2e6,
                onLower: true,
                canStepDown: false
            )
            #expect(action == .stay, "\(ms)")
        }
        #expect(
            a.estimate(700_000, now: Self.at(21_000), sent: 700_000, own: 2e6, onLower: true, canStepDown: false)
                == .stay
        )
        #expect(
            a.estimate(710_000, now: Self.at(23_000), sent: 700_000, own: 2e6, onLower: true, canStepDown: false)
                == .stepUp
        )
    }

    /// Once the estimate has ramped up to what it is sent, the plain rule holds again (no peak needed to fall from).
    @Test func afterTheRampThePlainRuleHolds() {
        var a = WHEPBandwidthAdaptation(probeWait: .seconds(1))
        func feed(_ ms: Int, _ estimate: Double, sent: Double, onLower: Bool) -> WHEPBandwidthAdaptation.Action {
            a.estimate(estimate, now: Self.at(ms), sent: sent, own: 2e6, onLower: onLower, canStepDown: !onLower)
        }
        _ = feed(0, 1e6, sent: 2e6, onLower: false)
        #expect(feed(1_000, 1e6, sent: 2e6, onLower: false) == .stepDown(estimate: 1e6))
        _ = feed(2_000, 8e5, sent: 7e5, onLower: true)
        #expect(feed(4_000, 8e5, sent: 7e5, onLower: true) == .stepUp)
        #expect(feed(5_000, 2.2e6, sent: 2e6, onLower: false) == .stay)  // ramped: back to the plain rule
        #expect(feed(6_000, 1.6e6, sent: 2e6, onLower: false) == .stay)
        #expect(feed(7_000, 1.65e6, sent: 2e6, onLower: false) == .stepDown(estimate: 1.65e6))
    }

    /// No lower rung, or a switch under way: never down.
    @Test func noStepDownWithoutARung() {
        var a = WHEPBandwidthAdaptation()
        for ms in stride(from: 0, through: 5_000, by: 500) {
            let action = a.estimate(100_000, now: Self.at(ms), sent: 2e6, own: 2e6, onLower: false, canStepDown: false)
            #expect(action == .stay)
        }
    }

    /// The highest rung that fits 85 % of the estimate, else the lowest; unknown rates fit nothing.
    @Test func goldenTargets() {
        let a = WHEPBandwidthAdaptation()
        let rungs: [(rung: String, bitRate: Double?)] = [("480p", 1_400_000), ("360p", 800_000), ("240p", nil)]
        let cases: [(Double, String?)] = [(2_000_000, "480p"), (1_500_000, "360p"), (900_000, "240p"), (100, "240p")]
        for (estimate, expected) in cases { #expect(a.target(among: rungs, estimate: estimate) == expected) }
        #expect(a.target(among: [(rung: String, bitRate: Double?)](), estimate: 1) == nil)
    }
}
