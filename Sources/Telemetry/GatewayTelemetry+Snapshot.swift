import MediaCore
import Synchronization

extension GatewayTelemetry {
    /// Per-rendition per-hop percentiles, counters, rates and audience of one stream; nil if nothing was recorded.
    public func snapshot(stream: StreamKey, now: ContinuousClock.Instant = .now) -> StreamTelemetry? {
        let key = stream.sourceKey
        return state.withLock { t -> StreamTelemetry? in
            guard let s = t.streams[key] else { return nil }
            var out = StreamTelemetry(stream: key.rawValue)
            for (name, r) in s.renditions {
                var tally = r.tally
                tally.name = name
                for (hop, h) in r.hopHistograms {
                    if let p = Self.percentiles(h) { tally.hops[hop.rawValue] = p }
                }
                let rates = r.rate.rates(now: now)
                tally.fps = (rates.fps * 100).rounded() / 100
                tally.bitRate = Int(rates.bitsPerSecond.rounded())
                out.renditions[name] = tally
            }
            out.viewers = viewers(s, now: now)
            out.blockingRequestsWaiting = s.waiting
            out.httpRequests = Dictionary(uniqueKeysWithValues: s.http.map { ($0.key.rawValue, $0.value) })
            if s.webrtc.sessionsGauge != nil || !s.webrtc.counters.isEmpty { out.webrtc = s.webrtc.snapshot }
            if s.srt.sessionsGauge != nil { out.srt = SRTStreamTelemetry(sessions: s.srt.sessions, stats: s.srt.last) }
            return out
        }
    }

    /// One rendition's packaged bit rate over the last few seconds (`RateMeter`); nil before it packaged anything.
    public func bitRate(stream: StreamKey, rendition: String, now: ContinuousClock.Instant = .now) -> Double? {
        state.withLock { t in
            guard let rate = t.streams[stream.sourceKey]?.renditions[rendition]?.rate.rates(now: now).bitsPerSecond,
                rate > 0
            else { return nil }
            return rate
        }
    }

    /// Keys of every stream with telemetry, sorted.
    public var streamKeys: [StreamKey] { state.withLock { $0.streams.keys.sorted() } }

    /// Percentiles of one hop of one rendition; nil before the first sample.
    public func percentiles(_ hop: Hop, stream: StreamKey, rendition: String) -> HopPercentiles? {
        state.withLock { t in
            t.streams[stream.sourceKey]?.renditions[rendition]?.hopHistograms[hop].flatMap(Self.percentiles)
        }
    }

    /// Forgets a stream's histograms and tallies (its Prometheus series keep their last values).
    public func forget(stream: StreamKey) {
        _ = state.withLock { $0.streams.removeValue(forKey: stream.sourceKey) }
    }

    static func percentiles(_ h: HopHistogram) -> HopPercentiles? {
        guard let p50 = h.quantile(0.5), let p90 = h.quantile(0.9), let p99 = h.quantile(0.99), let max = h.max else {
            return nil
        }
        func ms(_ d: Duration) -> Double { (d.secondsDouble * 1_000_000).rounded() / 1_000 }
        return HopPercentiles(count: h.count, p50Ms: ms(p50), p90Ms: ms(p90), p99Ms: ms(p99), maxMs: ms(max))
    }
}

extension Duration {
    /// Seconds as a Double.
    fileprivate var secondsDouble: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}
