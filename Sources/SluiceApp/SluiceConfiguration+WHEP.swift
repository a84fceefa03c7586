import MediaCore
import WHEPEgress
import WHIPIngest

extension SluiceConfiguration {
    /// The `whep` section: WebRTC playback limits, queues, repair history and the WebRTC rung.
    static func readWHEP(_ r: inout ConfigReader, into c: inout SluiceConfiguration) throws {
        c.whep.maxViewers = try r.int("max_viewers", in: 0...100_000) ?? c.whep.maxViewers
        if let s = try r.int("retry_after_s", in: 1...3600) { c.whep.retryAfter = .seconds(s) }
        c.whep.viewerQueuePackets = try r.int("viewer_queue_packets", in: 16...65_536) ?? c.whep.viewerQueuePackets
        c.whep.videoHistoryPackets = try r.int("nack_history_packets", in: 64...32_768) ?? c.whep.videoHistoryPackets
        if let ms = try r.int("keyframe_request_interval_ms", in: 100...10_000) {
            c.whep.keyframeRequestInterval = .milliseconds(ms)
        }
        if let ms = try r.int("join_keyframe_interval_ms", in: 33...10_000) {
            c.whep.joinKeyframeRequestInterval = .milliseconds(ms)
        }
        if let kbps = try r.int("rung_bitrate_kbps", in: 100...50_000) { c.whep.rungBitRate = kbps * 1000 }
        c.whep.joinOnRung = try r.bool("join_on_rung") ?? c.whep.joinOnRung
        c.whep.adaptToBandwidth = try r.bool("adapt_to_bandwidth") ?? c.whep.adaptToBandwidth
        if let kbps = try r.int("opus_bitrate_kbps", in: 16...510) { c.whep.opusBitRate = kbps * 1000 }
        if let s = try r.int("reconnect_grace_s", in: 0...300) { c.whep.reconnectGrace = .seconds(s) }
    }

    /// The printed `whep` section (`sluice config print`).
    var whepTree: ConfigNode {
        .map([
            .init(key: "max_viewers", value: .int(whep.maxViewers)),
            .init(key: "retry_after_s", value: .int(Int(whep.retryAfter.components.seconds))),
            .init(key: "viewer_queue_packets", value: .int(whep.viewerQueuePackets)),
            .init(key: "nack_history_packets", value: .int(whep.videoHistoryPackets)),
            .init(key: "keyframe_request_interval_ms", value: .int(Int(whep.keyframeRequestInterval.milliseconds))),
            .init(
                key: "join_keyframe_interval_ms",
                value: .int(Int(whep.joinKeyframeRequestInterval.milliseconds))
            ),
            .init(key: "rung_bitrate_kbps", value: .int(whep.rungBitRate / 1000)),
            .init(key: "join_on_rung", value: .bool(whep.joinOnRung)),
            .init(key: "adapt_to_bandwidth", value: .bool(whep.adaptToBandwidth)),
            .init(key: "opus_bitrate_kbps", value: .int(whep.opusBitRate / 1000)),
            .init(key: "reconnect_grace_s", value: .int(Int(whep.reconnectGrace.components.seconds))),
        ])
    }

    /// WHEP settings with what other sections decide filled in (the announced hosts are WHIP's too).
    public var whepEgress: WHEPEgressConfiguration {
        var w = whep
        w.additionalHosts = whip.additionalHosts
        return w
    }
}
