import MediaCore

/// A node's registrations over time as a value that returns actions: when to register, refresh or release each
/// live key, and while Redis is down, when to probe it. The registry carries out each action and feeds the
/// outcome back; time is a parameter, so tests drive it with a fake clock.
///
/// Refreshes run every `interval` (TTL/3: two may be lost before the entry expires). A key another node holds is
/// never taken: it is retried every `interval` and registered only once that node's entry is gone. Any connection
/// failure marks Redis down: keys are then not touched, one probe runs every `interval`, and when a probe succeeds
/// every live key is registered again (Redis may have restarted empty).
public struct RegistrationStateMachine: Sendable {
    /// Where one live key stands.
    public enum KeyState: Sendable, Equatable {
        /// Not (or no longer known to be) registered; register at `due`.
        case unregistered(due: ContinuousClock.Instant)
        /// Held by this node; refresh at `due`.
        case held(due: ContinuousClock.Instant)
        /// Held by another node (`holder`, its node URL); try to register again at `due`.
        case conflict(holder: String, due: ContinuousClock.Instant)
    }

    /// Whether Redis answers.
    public enum RedisState: Sendable, Equatable {
        case up
        /// Down since `since`; probe at `probeDue` (`probing` while one is in flight).
        case down(since: ContinuousClock.Instant, probeDue: ContinuousClock.Instant, probing: Bool)
    }

    /// What the registry must do next.
    public enum Action: Sendable, Equatable {
        /// SET NX the key to this node; report a `RegistrationOutcome`.
        case register(StreamKey)
        /// Renew the key's TTL if this node still holds it; report a `RefreshOutcome`.
        case refresh(StreamKey)
        /// Delete the key if this node still holds it.
        case release(StreamKey)
        /// PING Redis; report whether it answered.
        case probe
        /// Log: another node holds the key (first seen, or a new holder).
        case reportConflict(StreamKey, holder: String)
        /// Log: a key another node held is now this node's.
        case reportTakenOver(StreamKey)
        /// Log: a held key was found expired (refreshes came too late or Redis lost it); registering again.
        case reportExpired(StreamKey)
        /// Log: Redis went down.
        case reportRedisDown(StreamRegistryError)
        /// Log: Redis answers again after `downFor`; every live key is being registered again.
        case reportRedisUp(downFor: Duration, keys: Int)
    }

    /// Time between refreshes, retries and probes.
    public let interval: Duration
    /// The live keys.
    public private(set) var keys: [StreamKey: KeyState] = [:]
    /// Whether Redis answers.
    public private(set) var redis: RedisState = .up
    /// Keys with an action in flight (no second one is started by `tick`).
    private var inFlight = Set<StreamKey>()

    /// A machine refreshing every `interval`.
    public init(interval: Duration) {
        self.interval = interval
    }

    /// Whether Redis is known to be down.
    public var isRedisDown: Bool { redis != .up }

    /// A stream went live on this node: register it now (or when Redis returns).
    public mutating func started(_ key: StreamKey, now: ContinuousClock.Instant) -> [Action] {
        if keys[key] == nil { keys[key] = .unregistered(due: now) }
        guard redis == .up else { return [] }
        inFlight.insert(key)
        return [.register(key)]
    }

    /// A stream ended on this node: forget it and delete its entry if still ours (while Redis is down the entry
    /// expires by itself).
    public mutating func ended(_ key: StreamKey) -> [Action] {
        guard keys.removeValue(forKey: key) != nil else { return [] }
        inFlight.remove(key)
        return redis == .up ? [.release(key)] : []
    }

    /// Time passed: the actions now due.
    public mutating func tick(now: ContinuousClock.Instant) -> [Action] {
        switch redis {
        case .down(let since, let probeDue, let probing):
            guard !probing, probeDue <= now else { return [] }
            redis = .down(since: since, probeDue: probeDue, probing: true)
            return [.probe]
        case .up:
            var actions: [Action] = []
            for (key, state) in keys.sorted(by: { $0.key < $1.key }) where !inFlight.contains(key) {
                switch state {
                case .unregistered(let due) where due <= now, .conflict(_, let due) where due <= now:
                    actions.append(.register(key))
                case .held(let due) where due <= now:
                    actions.append(.refresh(key))
                default:
                    continue
                }
                inFlight.insert(key)
            }
            return actions
        }
    }

    /// The earliest time `tick` has something to do, nil when nothing is scheduled.
    public var nextDeadline: ContinuousClock.Instant? {
        switch redis {
        case .down(_, let probeDue, let probing): return probing ? nil : probeDue
        case .up:
            return keys.filter { !inFlight.contains($0.key) }.values.map { state in
                switch state {
                case .unregistered(let due), .held(let due), .conflict(_, let due): due
                }
            }.min()
        }
    }

    /// A register action's outcome.
    public mutating func registered(
        _ key: StreamKey,
        _ outcome: RegistrationOutcome,
        now: ContinuousClock.Instant
    ) -> [Action] {
        guard let previous = settle(key) else {
            // The stream ended while this registration was in flight: remove what it may have written after the
            // release (a claim that found the entry gone sets it again).
            return outcome == .registered && redis == .up && keys[key] == nil ? [.release(key)] : []
        }
        switch outcome {
        case .registered:
            keys[key] = .held(due: now + interval)
            if case .conflict = previous { return [.reportTakenOver(key)] }
            return []
        case .heldBy(let holder):
            return conflict(key, holder: holder, previous: previous, now: now)
        }
    }

    /// A refresh action's outcome.
    public mutating func refreshed(
        _ key: StreamKey,
        _ outcome: RefreshOutcome,
        now: ContinuousClock.Instant
    ) -> [Action] {
        guard let previous = settle(key) else { return [] }
        switch outcome {
        case .refreshed:
            keys[key] = .held(due: now + interval)
            return []
        case .expired:
            // Register again at once: the stream is live here and nobody holds the key.
            keys[key] = .unregistered(due: now)
            inFlight.insert(key)
            return [.reportExpired(key), .register(key)]
        case .heldBy(let holder):
            return conflict(key, holder: holder, previous: previous, now: now)
        }
    }

    /// An action for `key` (nil: a probe or a lookup) failed. A connection failure marks Redis down; any other
    /// error retries the key after `interval`.
    public mutating func failed(
        _ key: StreamKey?,
        _ error: StreamRegistryError,
        now: ContinuousClock.Instant
    ) -> [Action] {
        if case .redisUnavailable = error {
            if case .down(let since, _, _) = redis {
                redis = .down(since: since, probeDue: now + interval, probing: false)
                return []
            }
            redis = .down(since: now, probeDue: now + interval, probing: false)
            inFlight.removeAll()
            for key in keys.keys { keys[key] = .unregistered(due: now) }
            return [.reportRedisDown(error)]
        }
        guard let key, let previous = settle(key) else { return [] }
        switch previous {
        case .unregistered: keys[key] = .unregistered(due: now + interval)
        case .held: keys[key] = .held(due: now + interval)
        case .conflict(let holder, _): keys[key] = .conflict(holder: holder, due: now + interval)
        }
        return []
    }

    /// A probe (or any command) got an answer while Redis was down: register every live key again.
    public mutating func redisAnswered(now: ContinuousClock.Instant) -> [Action] {
        guard case .down(let since, _, _) = redis else { return [] }
        redis = .up
        let live = keys.keys.sorted()
        for key in live {
            keys[key] = .unregistered(due: now)
            inFlight.insert(key)
        }
        return [.reportRedisUp(downFor: now - since, keys: live.count)] + live.map { .register($0) }
    }

    /// Ends the in-flight action of `key`; its state before, nil when the key is no longer live or an outcome
    /// arrived while Redis was marked down (the keys are registered again when it returns).
    private mutating func settle(_ key: StreamKey) -> KeyState? {
        inFlight.remove(key)
        guard redis == .up else { return nil }
        return keys[key]
    }

    /// Another node holds `key`: retry later, reporting the holder only when it changed.
    private mutating func conflict(
        _ key: StreamKey,
        holder: String,
        previous: KeyState,
        now: ContinuousClock.Instant
    ) -> [Action] {
        keys[key] = .conflict(holder: holder, due: now + interval)
        if case .conflict(let known, _) = previous, known == holder { return [] }
        return [.reportConflict(key, holder: holder)]
    }
}
