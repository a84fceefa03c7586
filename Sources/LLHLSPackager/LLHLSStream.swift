import HLSPlaylist
import MediaCore
import Synchronization

/// One stream's packager: fed by the hub on one task, read by any number of HTTP requests.
public final class LLHLSStream: Sendable {
    /// The stream key.
    public let key: StreamKey
    let state: Mutex<LLHLSStreamState>
    let signal = ChangeSignal()

    init(key: StreamKey, epoch: String, config: LLHLSConfiguration) {
        self.key = key
        state = Mutex(LLHLSStreamState(key: key, epoch: epoch, config: config))
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

/// A read-only summary for `/api/streams` and logs.
public struct StreamSummary: Sendable, Codable {
    /// Stream key.
    public var key: String
    /// `live`, `reconnecting` or `ended`.
    public var state: String
    /// Video resolution and codec, if any.
    public var video: String?
    /// Audio codec and rate, if any.
    public var audio: String?
    /// Advertised PART-TARGET, seconds.
    public var partTarget: Double
    /// Newest MSN.
    public var lastMSN: Int?
    /// Frame ingested → part published, milliseconds.
    public var packageP50Ms: Double?
    /// Same, 99th percentile.
    public var packageP99Ms: Double?
    /// Samples behind the percentiles.
    public var packageSamples: Int
}

extension LLHLSStream {
    /// A summary of the stream now.
    public func summary() -> StreamSummary {
        state.withLock { s in
            let phase: String =
                switch s.phase {
                case .live: "live"
                case .awaitingReconnect: "reconnecting"
                case .ended: "ended"
                }
            let v = s.description?.video.map { "\($0.codecString) \($0.width)x\($0.height)" }
            let a = s.description?.audio.map { "\($0.codecString) \($0.sampleRate) Hz \($0.channels) ch" }
            func ms(_ d: Duration?) -> Double? { d.map { $0.secondsDouble * 1000 } }
            return StreamSummary(
                key: key.rawValue, state: phase, video: v, audio: a, partTarget: s.partTargetSeconds,
                lastMSN: (s.video ?? s.audio)?.rendition.lastPart?.msn, packageP50Ms: ms(s.packageLatency.quantile(0.5)),
                packageP99Ms: ms(s.packageLatency.quantile(0.99)), packageSamples: s.packageLatency.count)
        }
    }
}
