import MediaCore
import Synchronization
import Telemetry

/// One stream's packager: fed by the hub on one task, read by any number of HTTP requests. It owns the clocks and
/// the telemetry: the state it guards returns events, which it performs here.
public final class LLHLSStream: Sendable {
    /// The stream key.
    public let key: StreamKey
    let state: Mutex<LLHLSStreamState>
    /// Wakes the multivariant's wait for the publisher's tracks.
    let signal = ChangeSignal()
    /// Blocking requests parked by the origin (fast path and router alike), woken once per change
    /// (`LLHLSStream+Parking`, `LLHLSStream+Awaiting`).
    let parked = ParkedRequests()
    /// Answers shared by every asker of the same URL at the same state (`SharedResponse`).
    let sharedAnswers = Mutex<[ParkedRequests.Key: (version: UInt64?, shared: SharedResponse)]>([:])
    /// Where the package and available hops and the published parts are counted (the gateway's).
    let telemetry: GatewayTelemetry?
    /// This stream life's epoch (part of every media URI).
    let epoch: String
    /// Where completed segments and the stream's end are handed (the recorder), if anywhere.
    let onSegment: PackagedSegmentSink?
    let onEnd: PackagedStreamEnd?

    init(
        key: StreamKey,
        epoch: String,
        config: LLHLSConfiguration,
        telemetry: GatewayTelemetry? = nil,
        onSegment: PackagedSegmentSink? = nil,
        onEnd: PackagedStreamEnd? = nil,
        continuing continuation: StreamContinuation? = nil
    ) {
        self.key = key
        self.epoch = epoch
        self.telemetry = telemetry
        self.onSegment = onSegment
        self.onEnd = onEnd
        state = Mutex(LLHLSStreamState(key: key, epoch: epoch, config: config, continuation: continuation))
    }

    /// Runs one entry point of the state and performs the events it returns.
    @discardableResult
    func mutate(_ body: (inout LLHLSStreamState) -> [PackagerEvent]) -> [PackagerEvent] {
        let events = state.withLock { s in
            let events = body(&s)
            handOver(events)
            return events
        }
        perform(events)
        return events
    }

    /// Hands completed segments and the stream's end to the recorder while the state is still locked: two tasks'
    /// events then reach it in the order the state made them (a rung's last segment never lands after the end).
    private func handOver(_ events: [PackagerEvent]) {
        for event in events {
            switch event {
            case .segmentClosed(_, _, _, let recorded?): onSegment?(recorded)
            case .ended: onEnd?(key, epoch)
            default: break
            }
        }
    }

    /// Records the published parts' hops and wakes blocked requests when playlists changed.
    private func perform(_ events: [PackagerEvent]) {
        var changed = false
        for event in events {
            changed = changed || event.changesPlaylists
            switch event {
            case .partPublished(let part): record(part)
            default: break
            }
        }
        if changed {
            signal.fire()
            wakeParked()
        }
    }

    /// Records, for every frame of a part just listed: package (frame in → listed) and available (capture → now).
    private func record(_ part: ListedPart) {
        guard let telemetry else { return }
        let name = part.rendition
        for i in part.ingested { telemetry.record(.package, part.published - i, stream: key, rendition: name) }
        if !part.captured.isEmpty {
            let wall = WallTime.now()
            for c in part.captured {
                telemetry.record(.available, wall.duration(since: c), stream: key, rendition: name)
            }
        }
        telemetry.countPublished(
            stream: key,
            rendition: name,
            frames: part.frames,
            bytes: part.bytes,
            at: part.published
        )
    }

    /// True once ENDLIST was written.
    public var isEnded: Bool { state.withLock { $0.isEnded } }

    /// Requests blocked on this stream right now.
    public var blockedRequests: Int { signal.waiting + parked.count }

    /// Current phase and timing, for the reconnect and retention timers.
    var phase: LLHLSStreamState.Phase { state.withLock { $0.phase } }
}
