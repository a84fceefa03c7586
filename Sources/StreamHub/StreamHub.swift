import MediaCore
import Synchronization

/// Live streams by key; the one place publishers and consumers meet.
public final class StreamHub: Sendable {
    /// An announcement stream, and the reader it wants attached to every publication (nil: none).
    private struct Watcher {
        var continuation: AsyncStream<HubAnnouncement>.Continuation
        var reader: (name: String, capacity: Int)?
    }

    private struct State {
        var live: [StreamKey: Publication] = [:]
        /// Keys published from outside: who is on each one's air.
        var channels: [StreamKey: OnAirChannel] = [:]
        var watchers: [Int: Watcher] = [:]
        var nextWatcher = 0
        var nextSession = 0
    }

    private let state = Mutex(State())
    /// Most streams live at once.
    public let maxStreams: Int
    /// Sees every frame an ingest publication sends, before its readers do (ingest telemetry).
    private let onIngest: (@Sendable (StreamKey, MediaFrame) -> Void)?
    /// How ingest keys keep their air: standby, failover, the slate and its grace.
    public let onAir: OnAirConfiguration
    private let slateMaker: (any SlateMaker)?
    private let onSwitch: (@Sendable (OnAirSwitchEvent) -> Void)?

    /// Creates an empty hub; `onIngest` sees each frame entering from outside, whichever protocol brought it;
    /// `onAir` and `slateMaker` keep an ingest key's air alive across its publishers, `onSwitch` hears each change.
    public init(
        maxStreams: Int = 1_000,
        onAir: OnAirConfiguration = OnAirConfiguration(),
        slateMaker: (any SlateMaker)? = nil,
        onSwitch: (@Sendable (OnAirSwitchEvent) -> Void)? = nil,
        onIngest: (@Sendable (StreamKey, MediaFrame) -> Void)? = nil
    ) {
        self.maxStreams = maxStreams
        self.onAir = onAir
        self.slateMaker = slateMaker
        self.onSwitch = onSwitch
        self.onIngest = onIngest
    }

    /// Claims `key` for a publisher. Ingest protocols keep the default role, so their frames reach `onIngest`, and
    /// take a `seat` on the key's air: a second primary (or backup) is refused, a backup waits in standby. The
    /// gateway's own publishers (ladder rungs, the demo) say `.derived` and own their key alone.
    public func publish(
        key: StreamKey,
        origin: String,
        role: PublicationRole = .ingest,
        seat: OnAirRole = .primary
    ) throws(StreamHubError)
        -> Publication
    {
        let observer = role == .ingest ? onIngest.map { see in { @Sendable frame in see(key, frame) } } : nil
        let result: Result<(Publication, Publication?, [Watcher]), StreamHubError> =
            state.withLock { s in
                s.nextSession += 1
                let id = "\(key.rawValue)-\(WallTime.now().millisecondsSince1970)-\(s.nextSession)"
                if role == .ingest, let channel = s.channels[key], !channel.isEnded {
                    guard let p = channel.seat(seat, sessionID: id, origin: origin, onFrame: observer) else {
                        return .failure(seat == .backup ? .backupTaken(key) : .alreadyPublishing(key))
                    }
                    return .success((p, nil, []))
                }
                // A key whose air just ended is free (its publication leaves the table as it ends).
                if s.live[key] != nil, s.channels[key].map({ !$0.isEnded }) ?? true {
                    return .failure(.alreadyPublishing(key))
                }
                if s.live.count >= maxStreams { return .failure(.tooManyStreams(limit: maxStreams)) }
                let p = Publication(
                    key: key,
                    sessionID: id,
                    origin: origin,
                    onFrame: role == .ingest ? nil : observer
                ) { [weak self] p in
                    self?.remove(p)
                }
                s.live[key] = p
                guard role == .ingest else { return .success((p, p, Array(s.watchers.values))) }
                let channel = OnAirChannel(
                    key: key,
                    air: p,
                    configuration: onAir,
                    slateMaker: slateMaker,
                    onSwitch: onSwitch
                )
                s.channels[key] = channel
                guard let seated = channel.seat(seat, sessionID: id, origin: origin, onFrame: observer) else {
                    return .failure(.alreadyPublishing(key))
                }
                return .success((seated, p, Array(s.watchers.values)))
            }
        let (publication, announced, watchers) = try result.get()
        // Readers attach before the publisher holds its publication: nothing it sends can be missed.
        if let announced {
            for w in watchers { w.continuation.yield(Self.announcement(of: announced, for: w)) }
        }
        return publication
    }

    /// True when an ingest publisher asking for `seat` on `key` would be seated now (as `publish` decides), for a
    /// protocol that must answer before the publisher is in hand (SRT's handshake).
    public func admits(_ seat: OnAirRole, on key: StreamKey) -> Bool {
        let (channel, live) = state.withLock { ($0.channels[key], $0.live[key]) }
        if let channel, !channel.isEnded { return channel.admits(seat) }
        // No air, or one that just ended, is free; a key a derived publisher holds is not.
        return live == nil || channel != nil
    }

    /// Ends `key`'s air now, before its grace, when nobody publishes on it (its stream moved to another node); false
    /// while a publisher is seated there. True as well when the key has no air (nothing to end).
    public func endUnattendedAir(for key: StreamKey) -> Bool {
        guard let channel = state.withLock({ $0.channels[key] }) else { return true }
        return channel.endIfUnattended()
    }

    /// Who is on `key`'s air; nil when no ingest publishes it.
    public func onAirStatus(for key: StreamKey) -> OnAirStatus? {
        state.withLock { $0.channels[key] }?.status
    }

    /// Starts reading a live stream; nil if the key is not live.
    public func subscribe(key: StreamKey, name: String, capacity: Int = 512) -> StreamReader? {
        guard let p = state.withLock({ $0.live[key] }) else { return nil }
        let reader = StreamReader(name: name, capacity: capacity)
        p.attach(reader)
        return reader
    }

    /// Starts reading a live stream from its last video keyframe: the description, then the video frames since that
    /// keyframe (a decoder catches up on them before the first live frame), then live events. `replayed` counts the
    /// replayed frames; nil if the key is not live.
    public func subscribeReplayingLastGOP(
        key: StreamKey,
        name: String,
        capacity: Int = 512
    ) -> (reader: StreamReader, replayed: Int)? {
        guard let p = state.withLock({ $0.live[key] }) else { return nil }
        let reader = StreamReader(name: name, capacity: capacity)
        return (reader, p.attachReplayingLastGOP(reader))
    }

    /// Stops a reader early (a consumer going away); the publisher is unaffected.
    public func unsubscribe(_ reader: StreamReader, from key: StreamKey) {
        state.withLock { $0.live[key] }?.detach(reader)
        reader.finish()
    }

    /// The publication currently live on `key`.
    public func publication(for key: StreamKey) -> Publication? { state.withLock { $0.live[key] } }

    /// Keys live right now, sorted.
    public var liveKeys: [StreamKey] { state.withLock { $0.live.keys.sorted() } }

    /// Every stream that goes live from now on (plus those live already), until the consumer stops iterating.
    public func announcements(
        attaching reader: (name: String, capacity: Int)? = nil
    ) -> AsyncStream<HubAnnouncement> {
        let (stream, continuation) = AsyncStream<HubAnnouncement>.makeStream(bufferingPolicy: .unbounded)
        let watcher = Watcher(continuation: continuation, reader: reader)
        let current = state.withLock { s -> [Publication] in
            let id = s.nextWatcher
            s.nextWatcher += 1
            s.watchers[id] = watcher
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.watchers.removeValue(forKey: id) }
            }
            return Array(s.live.values)
        }
        for p in current { continuation.yield(Self.announcement(of: p, for: watcher)) }
        return stream
    }

    /// The announcement of `p` for `watcher`, with its reader attached when it wants one.
    private static func announcement(of p: Publication, for watcher: Watcher) -> HubAnnouncement {
        var note = HubAnnouncement(key: p.key, sessionID: p.sessionID, origin: p.origin)
        if let spec = watcher.reader {
            let reader = StreamReader(name: spec.name, capacity: spec.capacity)
            p.attach(reader)
            note.reader = reader
        }
        return note
    }

    /// Ends announcement streams (shutdown).
    public func finishAnnouncements() {
        let ws = state.withLock { s in
            defer { s.watchers = [:] }
            return Array(s.watchers.values)
        }
        for w in ws { w.continuation.finish() }
    }

    private func remove(_ p: Publication) {
        state.withLock { s in
            if s.live[p.key] === p {
                s.live[p.key] = nil
                if s.channels[p.key]?.air === p { s.channels[p.key] = nil }
            }
        }
    }
}
