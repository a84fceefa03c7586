import LLHLSPackager
import MediaCore
import StreamHub

extension SluiceConfiguration {
    /// The `ingest` section: the hot standby's failover and failback, and the slate while nobody is on air.
    static func readIngest(_ r: inout ConfigReader, into c: inout SluiceConfiguration) throws {
        if let ms = try r.int("failover_after_ms", in: 100...10_000) { c.onAir.failoverAfter = .milliseconds(ms) }
        if let mode = try r.string("failback") {
            guard let failback = OnAirConfiguration.Failback(rawValue: mode) else {
                throw ConfigurationError(key: "ingest.failback", allowed: "auto or manual", found: mode)
            }
            c.onAir.failback = failback
        }
        c.onAir.slate = try r.bool("slate") ?? c.onAir.slate
    }

    /// The printed `ingest` section (`sluice config print`).
    var ingestTree: ConfigNode {
        .map([
            .init(key: "failover_after_ms", value: .int(Int(onAir.failoverAfter.milliseconds))),
            .init(key: "failback", value: .string(onAir.failback.rawValue)),
            .init(key: "slate", value: .bool(onAir.slate)),
        ])
    }

    /// The hub's air as the gateway runs it: with the slate on, the air outlives its last publisher by
    /// `hls.reconnect_grace_s` (the slate runs that long); with it off, the air ends with the publisher and the
    /// packager holds the playlists open for the grace instead, as before the slate.
    public var effectiveOnAir: OnAirConfiguration {
        var o = onAir
        o.grace = onAir.slate ? hls.reconnectGrace : .zero
        return o
    }
}
