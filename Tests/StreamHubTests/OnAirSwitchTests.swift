import Testing

@testable import StreamHub

/// Who is on a key's air, decided without a clock: a backup stands by, takes over after a drop at its keyframe, gives
/// the air back; the slate fills while nobody sends; a flapping publisher is held off.
struct OnAirSwitchTests {
    static let t0 = ContinuousClock.now

    static func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }

    /// A machine with a grace; the slate's minimum time on air is zero unless given (most tests are about who).
    static func machine(
        slate: Bool = true,
        failback: OnAirConfiguration.Failback = .auto,
        minimumSlate: Duration = .zero
    ) -> OnAirSwitch {
        var c = OnAirConfiguration()
        c.slate = slate
        c.failback = failback
        c.grace = .seconds(10)
        c.minimumSlate = minimumSlate
        return OnAirSwitch(configuration: c)
    }

    @Test func theFirstPublisherIsOnAirFromItsFirstFrameAndASecondOfTheSameRoleIsRefused() {
        var s = Self.machine()
        let first = s.arrived(.primary, now: Self.at(0))
        let second = s.arrived(.primary, now: Self.at(1))
        #expect(first == .seated && second == .refused)
        #expect(s.media(.primary, isSplicePoint: false, now: Self.at(2)) == .forward)
        #expect(s.onAir == .seat(.primary) && s.switches == 0)
    }

    @Test func aReconnectTakesTheSeatOfAPublisherThatWentSilentWithoutClosing() {
        var s = Self.machine()
        _ = s.arrived(.primary, now: Self.at(0))
        _ = s.media(.primary, isSplicePoint: true, now: Self.at(0))
        // Sending: a second connection is refused (two encoders on one key do not take turns).
        _ = s.media(.primary, isSplicePoint: false, now: Self.at(400))
        #expect(s.arrived(.primary, now: Self.at(899)) == .refused)
        // Silent past the failover time (its uplink dropped without a FIN); the slate took the air at the stall.
        #expect(s.tick(now: Self.at(900)) == [.startSlate(.init(from: .seat(.primary), to: .slate, reason: .stalled))])
        #expect(s.arrived(.primary, now: Self.at(3_400)) == .replaced(silent: .seconds(3), actions: []))
        #expect(
            s.media(.primary, isSplicePoint: true, now: Self.at(3_500))
                == .splice(.init(from: .slate, to: .seat(.primary), reason: .returned))
        )
    }

    @Test func aReplacedPublisherStillOnAirGoesOffAirAsStalled() {
        var c = OnAirConfiguration()
        c.slate = false
        c.grace = .seconds(10)
        var s = OnAirSwitch(configuration: c)
        _ = s.arrived(.primary, now: Self.at(0))
        _ = s.media(.primary, isSplicePoint: true, now: Self.at(0))
        // No slate and no backup: the stall left it on air; its reconnect takes it off, and goes on air at a keyframe.
        #expect(s.tick(now: Self.at(700)).isEmpty)
        #expect(
            s.arrived(.primary, now: Self.at(1_000))
                == .replaced(
                    silent: .seconds(1),
                    actions: [.goDark(.init(from: .seat(.primary), to: nil, reason: .stalled))]
                )
        )
        #expect(s.media(.primary, isSplicePoint: false, now: Self.at(1_100)) == .drop)
        #expect(
            s.media(.primary, isSplicePoint: true, now: Self.at(1_200))
                == .splice(.init(from: nil, to: .seat(.primary), reason: .returned))
        )
    }

    @Test func aPublisherThatNeverSentIsSilentOnlyAfterFiveSeconds() {
        var s = Self.machine()
        _ = s.arrived(.primary, now: Self.at(0))
        #expect(s.arrived(.primary, now: Self.at(4_999)) == .refused)
        #expect(s.arrived(.primary, now: Self.at(5_000)) == .replaced(silent: .seconds(5), actions: []))
    }

    @Test func theSlateStaysOnAirHalfASecondBeforeABackupKeyframeReplacesIt() {
        #expect(OnAirConfiguration().minimumSlate == .milliseconds(500))
        var s = Self.machine(minimumSlate: OnAirConfiguration().minimumSlate)
        _ = s.arrived(.primary, now: Self.at(0))
        _ = s.media(.primary, isSplicePoint: true, now: Self.at(0))
        _ = s.arrived(.backup, now: Self.at(0))
        _ = s.media(.backup, isSplicePoint: true, now: Self.at(0))
        _ = s.left(.primary, now: Self.at(1_000))
        // A keyframe 30 ms after the kill would have left a slate segment hls.js skips as a hole.
        #expect(s.media(.backup, isSplicePoint: true, now: Self.at(1_030)) == .drop)
        #expect(s.media(.backup, isSplicePoint: true, now: Self.at(1_499)) == .drop)
        #expect(
            s.media(.backup, isSplicePoint: true, now: Self.at(1_500))
                == .splice(.init(from: .slate, to: .seat(.backup), reason: .takeover))
        )
    }

    @Test func aStandbyWaitsThenTakesOverAtItsKeyframeWhenThePrimaryLeaves() {
        var s = Self.machine()
        _ = s.arrived(.primary, now: Self.at(0))
        _ = s.media(.primary, isSplicePoint: true, now: Self.at(0))
        _ = s.arrived(.backup, now: Self.at(10))
        #expect(s.media(.backup, isSplicePoint: true, now: Self.at(20)) == .drop)
        let left = s.left(.primary, now: Self.at(100))
        #expect(left == [.startSlate(.init(from: .seat(.primary), to: .slate, reason: .left))])
        #expect(s.media(.backup, isSplicePoint: false, now: Self.at(110)) == .drop)
        #expect(
            s.media(.backup, isSplicePoint: true, now: Self.at(120))
                == .splice(.init(from: .slate, to: .seat(.backup), reason: .takeover))
        )
        #expect(s.media(.backup, isSplicePoint: false, now: Self.at(130)) == .forward)
        #expect(s.switches == 2)
    }

    @Test func aPrimaryThatStopsSendingIsTakenOffAirAfterTheFailoverTime() {
        var s = Self.machine()
        _ = s.arrived(.primary, now: Self.at(0))
        _ = s.media(.primary, isSplicePoint: true, now: Self.at(0))
        _ = s.arrived(.backup, now: Self.at(0))
        _ = s.media(.backup, isSplicePoint: false, now: Self.at(400))
        #expect(s.tick(now: Self.at(499)).isEmpty)
        _ = s.media(.backup, isSplicePoint: false, now: Self.at(499))
        #expect(s.tick(now: Self.at(500)) == [.startSlate(.init(from: .seat(.primary), to: .slate, reason: .stalled))])
        #expect(
            s.media(.backup, isSplicePoint: true, now: Self.at(510))
                == .splice(.init(from: .slate, to: .seat(.backup), reason: .takeover))
        )
        // The primary sends again: with automatic failback it takes the air back at its keyframe.
        #expect(s.media(.primary, isSplicePoint: false, now: Self.at(600)) == .drop)
        #expect(
            s.media(.primary, isSplicePoint: true, now: Self.at(633))
                == .splice(.init(from: .seat(.backup), to: .seat(.primary), reason: .failback))
        )
    }

    @Test func withManualFailbackTheBackupKeepsTheAir() {
        var s = Self.machine(failback: .manual)
        _ = s.arrived(.primary, now: Self.at(0))
        _ = s.media(.primary, isSplicePoint: true, now: Self.at(0))
        _ = s.arrived(.backup, now: Self.at(0))
        _ = s.media(.backup, isSplicePoint: true, now: Self.at(0))
        _ = s.left(.primary, now: Self.at(100))
        _ = s.media(.backup, isSplicePoint: true, now: Self.at(110))
        _ = s.arrived(.primary, now: Self.at(200))
        #expect(s.media(.primary, isSplicePoint: true, now: Self.at(210)) == .drop)
        #expect(s.onAir == .seat(.backup))
    }

    @Test func withoutTheSlateTheAirGoesDarkUntilSomeoneSends() {
        var s = Self.machine(slate: false)
        _ = s.arrived(.primary, now: Self.at(0))
        _ = s.media(.primary, isSplicePoint: true, now: Self.at(0))
        #expect(s.left(.primary, now: Self.at(50)) == [.goDark(.init(from: .seat(.primary), to: nil, reason: .left))])
        #expect(s.onAir == nil)
    }

    @Test func theAirEndsAfterTheGraceWithNobodyOnItAndAtOnceWithoutOne() {
        var s = Self.machine()
        _ = s.arrived(.primary, now: Self.at(0))
        _ = s.media(.primary, isSplicePoint: true, now: Self.at(0))
        _ = s.left(.primary, now: Self.at(1_000))
        #expect(!s.tick(now: Self.at(10_999)).contains(.end))
        #expect(s.tick(now: Self.at(11_000)).contains(.end))

        var c = OnAirConfiguration()
        c.grace = .zero
        var bare = OnAirSwitch(configuration: c)
        _ = bare.arrived(.primary, now: Self.at(0))
        _ = bare.media(.primary, isSplicePoint: true, now: Self.at(0))
        #expect(bare.left(.primary, now: Self.at(5)) == [.end])
    }

    @Test func withNothingToTakeItsPlaceAStalledPublisherStaysOnAir() {
        var c = OnAirConfiguration()
        c.grace = .zero
        var s = OnAirSwitch(configuration: c)
        _ = s.arrived(.primary, now: Self.at(0))
        _ = s.media(.primary, isSplicePoint: true, now: Self.at(0))
        #expect(s.tick(now: Self.at(600)).isEmpty)
        // It resumes where it was: no splice, no discontinuity.
        #expect(s.media(.primary, isSplicePoint: false, now: Self.at(700)) == .forward)
        // A backup that sends is somewhere to go: the next stall hands it the air.
        _ = s.arrived(.backup, now: Self.at(800))
        _ = s.media(.backup, isSplicePoint: false, now: Self.at(1_250))
        #expect(s.tick(now: Self.at(1_250)) == [.goDark(.init(from: .seat(.primary), to: nil, reason: .stalled))])
    }

    @Test func aPublisherBackWithinTheGraceStopsTheClock() {
        var s = Self.machine()
        _ = s.arrived(.primary, now: Self.at(0))
        _ = s.media(.primary, isSplicePoint: true, now: Self.at(0))
        _ = s.left(.primary, now: Self.at(1_000))
        _ = s.arrived(.primary, now: Self.at(5_000))
        #expect(
            s.media(.primary, isSplicePoint: true, now: Self.at(5_100))
                == .splice(.init(from: .slate, to: .seat(.primary), reason: .returned))
        )
        #expect(!s.tick(now: Self.at(20_000)).contains(.end))
    }

    @Test func aFlappingPrimaryIsHeldOffForADoublingTime() {
        var s = Self.machine()
        _ = s.arrived(.backup, now: Self.at(0))
        var holds: [OnAirSwitch.Action] = []
        var t = 0
        // Five cycles 3 s apart: on air 2.1 s after arriving (past a hold of up to 2 s), gone 0.1 s later.
        for _ in 0..<5 {
            _ = s.arrived(.primary, now: Self.at(t))
            _ = s.media(.backup, isSplicePoint: true, now: Self.at(t + 2_100))
            _ = s.media(.primary, isSplicePoint: true, now: Self.at(t + 2_100))
            holds += s.left(.primary, now: Self.at(t + 2_200)).filter {
                if case .holdOff = $0 { true } else { false }
            }
            t += 3_000
        }
        let seconds = holds.compactMap { action -> Duration? in
            if case .holdOff(_, let hold, _) = action { hold } else { nil }
        }
        #expect(seconds == [.seconds(1), .seconds(2), .seconds(4)])
        // Held: its keyframe does not take the air from the backup until the hold ends.
        _ = s.arrived(.primary, now: Self.at(t))
        #expect(s.media(.primary, isSplicePoint: true, now: Self.at(t + 10)) == .drop)
    }
}
