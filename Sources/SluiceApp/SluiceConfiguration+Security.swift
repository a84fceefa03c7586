import HTTPClient
import HTTPOrigin
import PublishAuth
import RTMPIngest

/// Limits and auth that are not one listener's business: live streams at once and the origin's access rules.
public struct SecurityConfiguration: Sendable {
    /// Most live streams at once, all protocols (`limits.max_streams`).
    public var maxStreams: Int = 100
    /// Who may publish, whatever the protocol (`auth.publish.*`): one authorizer for RTMP, WHIP and those to come.
    public var publish = PublishAuthConfiguration()
    /// Viewer tokens and blocking-request limits (`auth.view.*`, `limits.max_blocking_*`).
    public var origin = OriginAccess()
    /// RTMPS port (`rtmp.tls.port`), kept even while RTMPS is off so the printed configuration shows it.
    public var rtmpsPort: Int = 1936
    /// RTMPS certificate and key paths (`rtmp.tls.cert`, `rtmp.tls.key`); both set turns RTMPS on.
    public var rtmpsCertificate: String?
    public var rtmpsKey: String?

    /// The defaults.
    public init() {}
}

extension SluiceConfiguration {
    /// `rtmp.max_chunk_size`, `rtmp.max_amf0_depth`, `rtmp.max_sessions_per_ip`, `rtmp.tls.*`.
    static func readRTMPSecurity(_ r: inout ConfigReader, into c: inout SluiceConfiguration) throws {
        c.rtmp.maxChunkSize = try r.int("max_chunk_size", in: 128...(64 << 20)) ?? c.rtmp.maxChunkSize
        c.rtmp.maxAMF0Depth = try r.int("max_amf0_depth", in: 1...64) ?? c.rtmp.maxAMF0Depth
        c.rtmp.maxSessionsPerIP = try r.int("max_sessions_per_ip", in: 0...100_000) ?? c.rtmp.maxSessionsPerIP
        guard var tls = try r.section("tls") else { return }
        c.security.rtmpsPort = try tls.int("port", in: 0...65535) ?? c.security.rtmpsPort
        c.security.rtmpsCertificate = try tls.string("cert").flatMap { $0.isEmpty ? nil : $0 }
        c.security.rtmpsKey = try tls.string("key").flatMap { $0.isEmpty ? nil : $0 }
        try tls.finish()
        switch (c.security.rtmpsCertificate, c.security.rtmpsKey) {
        case (nil, nil): c.rtmp.tls = nil
        case (let cert?, let key?):
            c.rtmp.tls = RTMPTLSConfiguration(port: c.security.rtmpsPort, certificatePath: cert, keyPath: key)
        case (nil, _):
            throw ConfigurationError(
                key: "rtmp.tls.cert",
                allowed: "a PEM certificate path when rtmp.tls.key is set",
                found: "nothing"
            )
        case (_, nil):
            throw ConfigurationError(
                key: "rtmp.tls.key",
                allowed: "a PEM private key path when rtmp.tls.cert is set",
                found: "nothing"
            )
        }
    }

    /// The printed form of the keys read here (`sluice config print`).
    var rtmpSecurityTree: [ConfigNode.Entry] {
        [
            .init(key: "max_chunk_size", value: .int(rtmp.maxChunkSize)),
            .init(key: "max_amf0_depth", value: .int(rtmp.maxAMF0Depth)),
            .init(key: "max_sessions_per_ip", value: .int(rtmp.maxSessionsPerIP)),
            .init(
                key: "tls",
                value: .map([
                    .init(key: "port", value: .int(security.rtmpsPort)),
                    .init(key: "cert", value: .string(security.rtmpsCertificate ?? "")),
                    .init(key: "key", value: .string(security.rtmpsKey ?? "")),
                ])
            ),
        ]
    }

    /// The printed `limits` and `auth` sections.
    var securityTree: [ConfigNode.Entry] {
        let a = security.publish
        return [
            .init(
                key: "limits",
                value: .map([
                    .init(key: "max_streams", value: .int(security.maxStreams)),
                    .init(key: "max_blocking_per_stream", value: .int(security.origin.maxBlockingPerStream)),
                    .init(key: "max_blocking_total", value: .int(security.origin.maxBlockingTotal)),
                    .init(key: "retry_after_s", value: .int(Int(security.origin.retryAfter.components.seconds))),
                ])
            ),
            .init(
                key: "auth",
                value: .map([
                    .init(
                        key: "publish",
                        value: .map([
                            .init(key: "keys", value: .list(a.keys.map { .string($0) })),
                            .init(key: "hmac_secret", value: .string(a.hmacSecret ?? "")),
                            .init(key: "webhook_url", value: .string(a.webhookURL ?? "")),
                            .init(
                                key: "webhook_timeout_ms",
                                value: .int(
                                    Int(
                                        a.webhookTimeout.components.seconds * 1000
                                            + a.webhookTimeout.components.attoseconds / 1_000_000_000_000_000
                                    )
                                )
                            ),
                            .init(key: "anonymous", value: .string(a.anonymous?.rawValue ?? "")),
                        ])
                    ),
                    .init(
                        key: "view",
                        value: .map([.init(key: "hmac_secret", value: .string(security.origin.viewerSecret ?? ""))])
                    ),
                ])
            ),
        ]
    }

    /// The `limits` and `auth` sections.
    static func readSecurity(_ r: inout ConfigReader, into c: inout SluiceConfiguration) throws {
        if var limits = try r.section("limits") {
            c.security.maxStreams = try limits.int("max_streams", in: 1...100_000) ?? c.security.maxStreams
            c.security.origin.maxBlockingPerStream =
                try limits.int("max_blocking_per_stream", in: 1...1_000_000) ?? c.security.origin.maxBlockingPerStream
            c.security.origin.maxBlockingTotal =
                try limits.int("max_blocking_total", in: 1...10_000_000) ?? c.security.origin.maxBlockingTotal
            if let s = try limits.int("retry_after_s", in: 1...3600) { c.security.origin.retryAfter = .seconds(s) }
            try limits.finish()
        }
        guard var auth = try r.section("auth") else { return }
        if var publish = try auth.section("publish") {
            c.security.publish.keys = try publish.takeStrings("keys") ?? c.security.publish.keys
            c.security.publish.hmacSecret = try publish.string("hmac_secret").flatMap { $0.isEmpty ? nil : $0 }
            c.security.publish.webhookURL = try publish.string("webhook_url").flatMap { $0.isEmpty ? nil : $0 }
            if let ms = try publish.int("webhook_timeout_ms", in: 100...60_000) {
                c.security.publish.webhookTimeout = .milliseconds(ms)
            }
            if let rule = try publish.string("anonymous"), !rule.isEmpty {
                guard let a = PublishAuthConfiguration.Anonymous(rawValue: rule) else {
                    throw ConfigurationError(
                        key: "auth.publish.anonymous",
                        allowed: "none, loopback or any (empty: automatic)",
                        found: rule
                    )
                }
                c.security.publish.anonymous = a
            }
            // The parser the webhook client uses: a URL it would refuse at the first publish is refused here.
            if let url = c.security.publish.webhookURL, HTTPLocation(url) == nil {
                throw ConfigurationError(
                    key: "auth.publish.webhook_url",
                    allowed: "an http:// or https:// URL",
                    found: url
                )
            }
            try publish.finish()
        }
        if var view = try auth.section("view") {
            c.security.origin.viewerSecret = try view.string("hmac_secret").flatMap { $0.isEmpty ? nil : $0 }
            try view.finish()
        }
        try auth.finish()
    }
}

extension ConfigReader {
    /// A list of strings; taken out of the mapping so `finish()` counts it as read.
    mutating func takeStrings(_ k: String) throws -> [String]? {
        guard let v = values.removeValue(forKey: k) else { return nil }
        if let list = v as? [Any] {
            return try list.map { item in
                if let s = item as? String { return s }
                if item is Int { return "\(item)" }
                throw ConfigurationError(key: "\(prefix).\(k)", allowed: "a list of strings", found: "\(item)")
            }
        }
        // An environment override arrives as one string: comma-separated entries.
        if let s = v as? String { return s.split(separator: ",").map { String($0) } }
        throw ConfigurationError(key: "\(prefix).\(k)", allowed: "a list of strings", found: "\(v)")
    }
}
