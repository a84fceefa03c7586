/// Time the tests move by hand: the state machine takes `now` as a parameter, so no real time passes.
struct FakeClock {
    private(set) var now = ContinuousClock.now

    /// Moves time forward by `duration`.
    mutating func advance(by duration: Duration) {
        now += duration
    }
}
