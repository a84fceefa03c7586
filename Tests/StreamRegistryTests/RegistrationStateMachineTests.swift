import MediaCore
import RedisClient
import StreamRegistry
import Testing

/// The refresh loop as a value, driven by a fake clock: when each key is registered, refreshed, retried and
/// re-registered, and what is reported.
struct RegistrationStateMachineTests {
    let a = StreamKey("a")!
    let b = StreamKey("b")!
    let interval = Duration.seconds(1)
    let down = StreamRegistryError.redisUnavailable(.connectFailed(endpoint: "127.0.0.1:1", reason: "refused"))

    @Test func startRegistersAtOnceThenRefreshesEveryInterval() {
        var clock = FakeClock()
        var machine = RegistrationStateMachine(interval: interval)
        #expect(machine.started(a, now: clock.now) == [.register(a)])
        #expect(machine.tick(now: clock.now) == [])  // In flight: no second register.
        #expect(machine.registered(a, .registered, now: clock.now) == [])
        #expect(machine.keys[a] == .held(due: clock.now + interval))
        clock.advance(by: .milliseconds(999))
        #expect(machine.tick(now: clock.now) == [])
        #expect(machine.nextDeadline == clock.now + .milliseconds(1))
        clock.advance(by: .milliseconds(1))
        #expect(machine.tick(now: clock.now) == [.refresh(a)])
        #expect(machine.nextDeadline == nil)  // The only key is in flight.
        #expect(machine.refreshed(a, .refreshed, now: clock.now) == [])
        #expect(machine.keys[a] == .held(due: clock.now + interval))
    }

    @Test func aKeyAnotherNodeHoldsIsNeverTakenButRetriedAndReportedOnce() {
        var clock = FakeClock()
        var machine = RegistrationStateMachine(interval: interval)
        _ = machine.started(a, now: clock.now)
        #expect(
            machine.registered(a, .heldBy("http://n1"), now: clock.now) == [.reportConflict(a, holder: "http://n1")]
        )
        #expect(machine.keys[a] == .conflict(holder: "http://n1", due: clock.now + interval))
        clock.advance(by: interval)
        #expect(machine.tick(now: clock.now) == [.register(a)])
        // Same holder: not reported again.
        #expect(machine.registered(a, .heldBy("http://n1"), now: clock.now) == [])
        clock.advance(by: interval)
        #expect(machine.tick(now: clock.now) == [.register(a)])
        // A new holder is reported.
        #expect(
            machine.registered(a, .heldBy("http://n2"), now: clock.now) == [.reportConflict(a, holder: "http://n2")]
        )
        clock.advance(by: interval)
        #expect(machine.tick(now: clock.now) == [.register(a)])
        // The holder's entry expired: this node takes the key.
        #expect(machine.registered(a, .registered, now: clock.now) == [.reportTakenOver(a)])
        #expect(machine.keys[a] == .held(due: clock.now + interval))
    }

    @Test func aRefreshFindingTheKeyGoneRegistersItAgainAtOnce() {
        var clock = FakeClock()
        var machine = RegistrationStateMachine(interval: interval)
        _ = machine.started(a, now: clock.now)
        _ = machine.registered(a, .registered, now: clock.now)
        clock.advance(by: interval)
        #expect(machine.tick(now: clock.now) == [.refresh(a)])
        #expect(machine.refreshed(a, .expired, now: clock.now) == [.reportExpired(a), .register(a)])
        #expect(machine.tick(now: clock.now) == [])
        #expect(machine.registered(a, .registered, now: clock.now) == [])
    }

    @Test func aRefreshFindingAnotherHolderIsAConflict() {
        var clock = FakeClock()
        var machine = RegistrationStateMachine(interval: interval)
        _ = machine.started(a, now: clock.now)
        _ = machine.registered(a, .registered, now: clock.now)
        clock.advance(by: interval)
        _ = machine.tick(now: clock.now)
        #expect(machine.refreshed(a, .heldBy("http://n1"), now: clock.now) == [.reportConflict(a, holder: "http://n1")])
        #expect(machine.keys[a] == .conflict(holder: "http://n1", due: clock.now + interval))
    }

    @Test func redisDownProbesEveryIntervalAndReRegistersEveryKeyWhenBack() {
        var clock = FakeClock()
        var machine = RegistrationStateMachine(interval: interval)
        _ = machine.started(a, now: clock.now)
        _ = machine.registered(a, .registered, now: clock.now)
        _ = machine.started(b, now: clock.now)
        _ = machine.registered(b, .heldBy("http://n1"), now: clock.now)
        clock.advance(by: interval)
        #expect(machine.tick(now: clock.now) == [.refresh(a), .register(b)])
        #expect(machine.failed(a, down, now: clock.now) == [.reportRedisDown(down)])
        #expect(machine.isRedisDown)
        // The other in-flight action fails too: reported once.
        #expect(machine.failed(b, down, now: clock.now) == [])
        #expect(machine.tick(now: clock.now) == [])
        clock.advance(by: interval)
        #expect(machine.tick(now: clock.now) == [.probe])
        #expect(machine.tick(now: clock.now) == [])  // One probe at a time.
        #expect(machine.failed(nil, down, now: clock.now) == [])
        clock.advance(by: .milliseconds(500))
        #expect(machine.tick(now: clock.now) == [])
        clock.advance(by: .milliseconds(500))
        #expect(machine.tick(now: clock.now) == [.probe])
        // A stream that starts while Redis is down waits for it.
        let c = StreamKey("c")!
        #expect(machine.started(c, now: clock.now) == [])
        #expect(
            machine.redisAnswered(now: clock.now) == [
                .reportRedisUp(downFor: .seconds(2), keys: 3), .register(a), .register(b), .register(c),
            ]
        )
        #expect(machine.isRedisDown == false)
    }

    @Test func anOutcomeArrivingWhileDownIsIgnored() {
        let clock = FakeClock()
        var machine = RegistrationStateMachine(interval: interval)
        _ = machine.started(a, now: clock.now)
        _ = machine.started(b, now: clock.now)
        _ = machine.failed(b, down, now: clock.now)
        #expect(machine.registered(a, .registered, now: clock.now) == [])
        #expect(machine.keys[a] == .unregistered(due: clock.now))
    }

    @Test func endedReleasesWhenUpAndLateRegistrationsAreReleasedAgain() {
        let clock = FakeClock()
        var machine = RegistrationStateMachine(interval: interval)
        _ = machine.started(a, now: clock.now)
        #expect(machine.ended(a) == [.release(a)])
        #expect(machine.ended(a) == [])
        // The register in flight may have written the entry after the release: release again.
        #expect(machine.registered(a, .registered, now: clock.now) == [.release(a)])
        #expect(machine.registered(a, .heldBy("http://n1"), now: clock.now) == [])
        #expect(machine.refreshed(a, .refreshed, now: clock.now) == [])
        #expect(machine.keys.isEmpty)
        _ = machine.started(b, now: clock.now)
        _ = machine.failed(b, down, now: clock.now)
        // While Redis is down the entry is left to expire.
        #expect(machine.ended(b) == [])
    }

    @Test func otherFailuresRetryTheKeyAfterAnInterval() {
        var clock = FakeClock()
        var machine = RegistrationStateMachine(interval: interval)
        _ = machine.started(a, now: clock.now)
        let refused = StreamRegistryError.redisFailed(.server(command: "EVAL", message: "NOSCRIPT"))
        #expect(machine.failed(a, refused, now: clock.now) == [])
        #expect(machine.isRedisDown == false)
        #expect(machine.keys[a] == .unregistered(due: clock.now + interval))
        clock.advance(by: interval)
        #expect(machine.tick(now: clock.now) == [.register(a)])
    }
}
