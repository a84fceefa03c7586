import LLHLSPackager
import MediaCore
import WHIPIngest
import WebRTCTransport
import WebRTCWire

extension SluiceConfiguration {
    /// The `webrtc` section: the shared UDP port, its candidates, consent, reorder wait and session limit.
    static func readWebRTC(_ r: inout ConfigReader, into c: inout SluiceConfiguration) throws {
        c.webrtcPort = try r.int("port", in: 0...65535) ?? c.webrtcPort
        c.webrtcHosts = try r.strings("hosts") ?? c.webrtcHosts
        c.whip.additionalHosts = try r.takeStrings("additional_hosts")?.filter { !$0.isEmpty } ?? c.whip.additionalHosts
        if let s = try r.int("consent_timeout_s", in: 1...300) { c.webrtcConsentTimeout = .seconds(s) }
        if let ms = try r.int("reorder_wait_ms", in: 10...2000) { c.whip.reorderWait = .milliseconds(ms) }
        c.whip.maxSessions = try r.int("max_sessions", in: 0...100_000) ?? c.whip.maxSessions
        c.whip.maxOfferBytes = try r.int("max_offer_bytes", in: 1024...1_048_576) ?? c.whip.maxOfferBytes
        // 0 keeps the default: the HLS segment target, so every segment can start on a requested IDR.
        if let s = try r.double("keyframe_interval_s", in: 0...60) {
            c.whip.keyframeInterval = s > 0 ? .milliseconds(Int64(s * 1000)) : nil
        }
        if let kbps = try r.int("max_bitrate_kbps", in: 0...1_000_000) { c.whip.maxBitrate = UInt64(kbps) * 1000 }
    }

    /// Rules the flags must keep too (`--webrtc-port`): a port number, and candidates that are concrete IP addresses.
    func validateWebRTC() throws {
        guard (0...65535).contains(webrtcPort) else {
            throw ConfigurationError(key: "webrtc.port", allowed: "an integer in 0...65535", found: "\(webrtcPort)")
        }
        guard !webrtcHosts.isEmpty else {
            throw ConfigurationError(key: "webrtc.hosts", allowed: "at least one IP address", found: "an empty list")
        }
        for (key, hosts) in [("webrtc.hosts", webrtcHosts), ("webrtc.additional_hosts", whip.additionalHosts)] {
            for host in hosts {
                // ICE host candidates carry an address the publisher can send to: never a wildcard or a name.
                guard let ip = TransportAddress.parseIP(host), ip.contains(where: { $0 != 0 }) else {
                    throw ConfigurationError(
                        key: key,
                        allowed: "IP addresses such as 127.0.0.1 or 2001:db8::1 (no wildcard, no host name)",
                        found: host
                    )
                }
            }
        }
    }

    /// The printed `webrtc` section (`sluice config print`).
    var webrtcTree: ConfigNode {
        .map([
            .init(key: "port", value: .int(webrtcPort)),
            .init(key: "hosts", value: .list(webrtcHosts.map { .string($0) })),
            .init(key: "additional_hosts", value: .list(whip.additionalHosts.map { .string($0) })),
            .init(key: "consent_timeout_s", value: .int(Int(webrtcConsentTimeout.components.seconds))),
            .init(key: "reorder_wait_ms", value: .int(Int(whip.reorderWait.milliseconds))),
            .init(key: "max_sessions", value: .int(whip.maxSessions)),
            .init(key: "max_offer_bytes", value: .int(whip.maxOfferBytes)),
            .init(key: "keyframe_interval_s", value: .double(whip.keyframeInterval?.secondsDouble ?? 0)),
            .init(key: "max_bitrate_kbps", value: .int(Int(whip.maxBitrate / 1000))),
        ])
    }

    /// WHIP ingest settings with defaults that depend on other sections filled in (keyframe interval: segment target).
    public var whipIngest: WHIPIngestConfiguration {
        var w = whip
        w.keyframeInterval = w.keyframeInterval ?? hls.segmentTarget
        return w
    }

    /// What the shared WebRTC port needs from `webrtc.*`.
    public var webrtcTransport: WebRTCTransportConfiguration {
        var t = WebRTCTransportConfiguration()
        t.port = webrtcPort
        t.hosts = webrtcHosts
        t.consentTimeout = webrtcConsentTimeout
        return t
    }
}
