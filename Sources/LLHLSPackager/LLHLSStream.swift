import HLSPlaylist
import MediaCore
import Synchronization
import Telemetry

/// One stream's packager: fed by the hub on one task, read by any number of HTTP requests.
public final class LLHLSStream: Sendable {
    /// The stream key.
    public let key: StreamKey
    let state: Mutex<LLHLSStreamState>
    let signal = ChangeSignal()

    init(key: StreamKey, epoch: String, config: LLHLSConfiguration, telemetry: GatewayTelemetry? = nil) {
        self.key = key
        var initial = LLHLSStreamState(key: key, epoch: epoch, config: config)
        initial.telemetry = telemetry
        state = Mutex(initial)
    }

    /// Runs `body` on the state and wakes blocked requests if it published anything.
    func mutate(_ body: (inout LLHLSStreamState) -> Void) {
        let changed = state.withLock { s -> Bool in
            let before = s.version
            body(&s)
            return s.version != before
        }
        if changed { signal.fire() }
    }

    /// True once ENDLIST was written.
    public var isEnded: Bool { state.withLock { $0.isEnded } }

    /// Requests blocked on this stream right now.
    public var blockedRequests: Int { signal.waiting }

    /// Current phase and timing, for the reconnect and retention timers.
    var phase: LLHLSStreamState.Phase { state.withLock { $0.phase } }
}
