import HLSPlaylist
import MediaCore
import Synchronization
import Telemetry

/// One stream's packager: fed by the hub on one task, read by any number of HTTP requests. It owns the clocks and
/// the telemetry: the state it guards returns events, which it performs here.
public final class LLHLSStream: Sendable {
    /// The stream key.
    public let key: StreamKey
    let state: Mutex<LLHLSStreamState>
    let signal = ChangeSignal()
    /// Where the package and available hops and the published parts are counted (the gateway's).
    let telemetry: GatewayTelemetry?

    init(key: StreamKey, epoch: String, config: LLHLSConfiguration, telemetry: GatewayTelemetry? = nil) {
        self.key = key
        self.telemetry = telemetry
        state = Mutex(LLHLSStreamState(key: key, epoch: epoch, config: config))
    }

    /// Runs one entry point of the state and performs the events it returns.
    @discardableResult
    func mutate(_ body: (inout LLHLSStreamState) -> [PackagerEvent]) -> [PackagerEvent] {
        let events = state.withLock { body(&$0) }
        perform(events)
        return events
    }

    /// Records the published parts' hops and wakes blocked requests when playlists changed.
    private func perform(_ events: [PackagerEvent]) {
        var changed = false
        for event in events {
            changed = changed || event.changesPlaylists
            if case .partPublished(let part) = event { record(part) }
        }
        if changed { signal.fire() }
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
    public var blockedRequests: Int { signal.waiting }

    /// Current phase and timing, for the reconnect and retention timers.
    var phase: LLHLSStreamState.Phase { state.withLock { $0.phase } }
}
