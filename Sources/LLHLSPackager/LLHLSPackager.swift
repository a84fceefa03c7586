import Logging
import MediaCore
import StreamHub
import Synchronization
import Telemetry

/// Whether a key going live here continues another node's numbering (the cluster's registry answers); nil: it does
/// not, or nobody can tell (start fresh).
public typealias StreamContinuationSource = @Sendable (StreamKey) async -> StreamContinuation?

/// Packages every stream of the hub as LL-HLS and answers the origin's lookups.
public final class LLHLSPackager: Sendable {
    /// Settings shared by all streams.
    public let configuration: LLHLSConfiguration
    private let hub: StreamHub
    let logger: Logger
    private let streamsByKey = Mutex<[StreamKey: LLHLSStream]>([:])
    /// Fires when a stream key starts being packaged (wakes playlist requests that arrived before the publisher).
    private let arrivals = ChangeSignal()
    /// Where package/available hops, published parts and reader drops are counted.
    public let telemetry: GatewayTelemetry
    /// Where completed segments and ended streams are handed (the recorder), if anywhere.
    private let onSegment: PackagedSegmentSink?
    private let onEnd: PackagedStreamEnd?
    /// Asked, for a key that goes live here with no stream of its own, whether it continues another node's numbering.
    private let continuations: StreamContinuationSource?

    /// Creates a packager reading from `hub`; `telemetry` is the gateway's (a private one when not given).
    public init(
        hub: StreamHub,
        configuration: LLHLSConfiguration = LLHLSConfiguration(),
        logger: Logger,
        telemetry: GatewayTelemetry = GatewayTelemetry(),
        onSegment: PackagedSegmentSink? = nil,
        onEnd: PackagedStreamEnd? = nil,
        continuations: StreamContinuationSource? = nil
    ) {
        self.continuations = continuations
        self.telemetry = telemetry
        self.onSegment = onSegment
        self.onEnd = onEnd
        self.hub = hub
        self.configuration = configuration
        self.logger = logger
    }

    /// The stream served under `key`, live or recently ended.
    public func stream(for key: StreamKey) -> LLHLSStream? { streamsByKey.withLock { $0[key] } }

    /// The stream served under `key`, waiting up to `limit` for a publisher that has not arrived yet: a viewer who
    /// opens the page first gets the playlist the moment the stream starts instead of a 404 and a retry.
    public func stream(for key: StreamKey, waitingUpTo limit: Duration) async -> LLHLSStream? {
        let deadline = ContinuousClock.now + limit
        while true {
            let seen = arrivals.version
            if let s = stream(for: key) { return s }
            if ContinuousClock.now >= deadline || Task.isCancelled { return nil }
            await arrivals.wait(after: seen, until: deadline)
        }
    }

    /// Where the live stream of `key` stands, as `node` records it in the cluster's registry at `now`; nil when no
    /// stream of that key is live here or nothing is described yet.
    public func position(of key: StreamKey, node: String, now: WallTime = .now()) -> StreamPosition? {
        guard let s = stream(for: key), !s.isEnded, let numbering = s.state.withLock({ $0.numbering }) else {
            return nil
        }
        return StreamPosition(
            nextMSN: numbering.nextMSN,
            discontinuity: numbering.discontinuity,
            epoch: s.epoch,
            node: node,
            recordedAt: now
        )
    }

    /// All streams served, sorted by key.
    public var streams: [LLHLSStream] { streamsByKey.withLock { $0.values.sorted { $0.key < $1.key } } }

    /// Every stream as `GET /api/streams` reports it, with who is on its air.
    public func summaries() -> [StreamSummary] {
        streams.map { stream in
            var summary = stream.summary()
            if !stream.isEnded, let status = hub.onAirStatus(for: stream.key) {
                summary.onAir = status.onAir
                summary.switches = status.switches
                summary.backup = status.backup
            }
            return summary
        }
    }

    /// Follows the hub until cancelled; then ends every playlist with ENDLIST.
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.maintain() }
            // Rungs announced before their source (the hub replays live keys in any order to a late subscriber, and
            // the services start together): subscribed at once, packaged once the source is attached.
            var early: [StreamKey: [(rung: String, reader: StreamReader)]] = [:]
            // Each publication comes with its reader already attached: a rung (or a short session) that ends before
            // this loop gets to it is still packaged whole, not lost for its session.
            for await note in hub.announcements(attaching: (name: "hls", capacity: 2_048)) {
                if let rung = note.key.renditionName {
                    // A transcoded rung joins its source's stream as one more rendition.
                    let source = stream(for: note.key.sourceKey)
                    guard let reader = note.reader else { continue }
                    if let source, source.isEnded {
                        hub.unsubscribe(reader, from: note.key)
                        continue
                    }
                    guard let source else {
                        early[note.key.sourceKey, default: []].append((rung, reader))
                        continue
                    }
                    group.addTask { await self.consumeRung(rung, reader, into: source) }
                    continue
                }
                guard let reader = note.reader else { continue }
                let stream = await attach(note)
                group.addTask { await self.consume(reader, into: stream, note: note) }
                for (rung, rungReader) in early.removeValue(forKey: note.key) ?? [] {
                    group.addTask { await self.consumeRung(rung, rungReader, into: stream) }
                }
            }
            group.cancelAll()
        }
        endAll()
    }

    /// Stops serving `key` here, without ENDLIST: its stream moved to another node, which the origin relays from now
    /// on (`HTTPOriginOptions.streamFallback` answers for keys with no stream here). Requests waiting on it get a 503
    /// that no cache keeps, so players ask again and reach the relay; the recorder closes its recording. False when
    /// no stream of `key` is served here.
    @discardableResult
    public func retire(_ key: StreamKey) -> Bool {
        guard let s = streamsByKey.withLock({ $0.removeValue(forKey: key) }) else { return false }
        s.retire()
        telemetry.forget(stream: key)
        return true
    }

    /// Writes ENDLIST to every stream and releases blocked requests (graceful shutdown).
    public func endAll() {
        for s in streams where !s.isEnded {
            s.mutate { $0.end(now: .now) }
            logger.info("ended playlist", metadata: ["stream": "\(s.key)"])
        }
        hub.finishAnnouncements()
    }

    private func attach(_ note: HubAnnouncement) async -> LLHLSStream {
        // Only a key with no stream here may continue another node's: a reconnect here continues its own, and a publish
        // after this node's ENDLIST starts a new stream, as on a single node. The reader is attached already, so the
        // registry's answer (one GET, bounded by the Redis client's command timeout) costs the stream no frame.
        let continuation: StreamContinuation?
        if let continuations, stream(for: note.key) == nil {
            continuation = await continuations(note.key)
        } else {
            continuation = nil
        }
        let (stream, isNew) = streamsByKey.withLock { all -> (LLHLSStream, Bool) in
            if let s = all[note.key], !s.isEnded { return (s, false) }
            let epoch = String(WallTime.now().millisecondsSince1970, radix: 36)
            let s = LLHLSStream(
                key: note.key,
                epoch: epoch,
                config: configuration,
                telemetry: telemetry,
                onSegment: onSegment,
                onEnd: onEnd,
                continuing: continuation
            )
            all[note.key] = s
            return (s, true)
        }
        stream.mutate { $0.beginSession(now: .now) }
        if isNew { arrivals.fire() }
        if isNew, let continuation {
            logger.notice(
                "continuing the stream another node packaged (its publisher reconnected here), with a discontinuity",
                metadata: [
                    "stream": "\(note.key)", "from": "\(continuation.position.node)",
                    "from_epoch": "\(continuation.position.epoch)", "first_msn": "\(continuation.firstMSN)",
                    "discontinuity_sequence": "\(continuation.discontinuitySequence)",
                ]
            )
        }
        logger.info(
            isNew ? "packaging new stream" : "publisher reconnected; continuing with a discontinuity",
            metadata: ["stream": "\(note.key)", "session": "\(note.sessionID)", "peer": "\(note.origin)"]
        )
        return stream
    }

    private func consume(_ reader: StreamReader, into stream: LLHLSStream, note: HubAnnouncement) async {
        var dropCount = DropCount()
        while let event = await reader.next() {
            let dropped = reader.takeDropFlag()
            if dropped { dropCount.report(reader, stream: note.key, rendition: "video", to: telemetry) }
            let events = stream.mutate { s in
                switch event {
                case .description(let d): s.apply(d, now: .now)
                case .frame(let f): (dropped ? s.readerDropped() : []) + s.apply(f, now: .now)
                case .ended: []
                }
            }
            log(events, stream: note.key, session: note.sessionID)
        }
        stream.mutate { $0.publisherLeft(now: .now) }
        let summary = stream.summary()
        logger.info(
            "publisher left; holding playlists open for reconnect",
            metadata: [
                "stream": "\(note.key)", "session": "\(note.sessionID)", "dropped_frames": "\(reader.droppedFrames)",
                "package_p50_ms": "\(summary.packageP50Ms.map { String(format: $0) } ?? "n/a")",
            ]
        )
    }

    private func consumeRung(_ rung: String, _ reader: StreamReader, into stream: LLHLSStream) async {
        logger.info("packaging ladder rung", metadata: ["stream": "\(stream.key)", "rung": "\(rung)"])
        // A transcoder still draining the previous publisher's session must not write into the next one.
        let session = stream.mutate { $0.attachRung(rung) }.lazy.compactMap { e -> Int? in
            if case .rungAttached(_, let session) = e { session } else { nil }
        }.first
        var dropCount = DropCount()
        while let event = await reader.next() {
            let dropped = reader.takeDropFlag()
            if dropped { dropCount.report(reader, stream: stream.key, rendition: rung, to: telemetry) }
            let events = stream.mutate { s in
                switch event {
                case .description(let d):
                    s.applyRung(rung, description: d, session: session, now: .now)
                case .frame(let f):
                    (dropped ? s.rungReaderDropped(rung, session: session) : [])
                        + s.applyRung(rung, frame: f, session: session, now: .now)
                case .ended:
                    []
                }
            }
            log(events, stream: stream.key)
        }
        log(stream.mutate { $0.rungLeft(rung, session: session, now: .now) }, stream: stream.key)
    }

    /// Ends streams whose publisher did not come back in time and forgets long-ended ones.
    private func maintain() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(250))
            let now = ContinuousClock.now
            for s in streams {
                switch s.phase {
                case .awaitingReconnect(let since) where now - since >= configuration.reconnectGrace:
                    s.mutate { $0.end(now: ClockReading(instant: now, wall: .now())) }
                    logger.info("reconnect grace expired; playlist ended", metadata: ["stream": "\(s.key)"])
                case .ended(let since) where now - since >= configuration.endedRetention:
                    let removed = streamsByKey.withLock { all in
                        guard all[s.key] === s else { return false }
                        all[s.key] = nil
                        return true
                    }
                    // Its histograms go with it (a new publisher on the key starts fresh percentiles).
                    if removed { telemetry.forget(stream: s.key) }
                default:
                    break
                }
            }
        }
    }
}

/// Formats milliseconds with one decimal without Foundation.
private func String(format value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(abs(tenths % 10))"
}
