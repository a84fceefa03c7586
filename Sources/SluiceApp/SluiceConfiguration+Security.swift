import HTTPOrigin
import RTMPIngest

/// Limits and auth that are not one listener's business: live streams at once and the origin's access rules.
public struct SecurityConfiguration: Sendable {
    /// Most live streams at once, all protocols (`limits.max_streams`).
    public var maxStreams: Int = 100
    /// Viewer tokens and blocking-request limits (`auth.view.*`, `limits.max_blocking_*`).
    public var origin = OriginAccess()

    /// The defaults.
    public init() {}
}

extension SluiceConfiguration {
    /// `rtmp.max_chunk_size`, `rtmp.max_amf0_depth`, `rtmp.max_sessions_per_ip`, `rtmp.tls.*`.
    static func readRTMPSecurity(_ r: inout ConfigReader, into c: inout SluiceConfiguration) throws {
        c.rtmp.maxChunkSize = try r.int("max_chunk_size", in: 128...(16 << 20)) ?? c.rtmp.maxChunkSize
        c.rtmp.maxAMF0Depth = try r.int("max_amf0_depth", in: 1...64) ?? c.rtmp.maxAMF0Depth
        c.rtmp.maxSessionsPerIP = try r.int("max_sessions_per_ip", in: 0...100_000) ?? c.rtmp.maxSessionsPerIP
        guard var tls = try r.section("tls") else { return }
        let port = try tls.int("port", in: 0...65535)
        let cert = try tls.string("cert").flatMap { $0.isEmpty ? nil : $0 }
        let key = try tls.string("key").flatMap { $0.isEmpty ? nil : $0 }
        try tls.finish()
        switch (cert, key) {
        case (nil, nil): c.rtmp.tls = nil
        case (let cert?, let key?):
            c.rtmp.tls = RTMPTLSConfiguration(port: port ?? 1936, certificatePath: cert, keyPath: key)
        default:
            throw ConfigurationError(key: "rtmp.tls", allowed: "both cert and key (or neither)", found: "only one")
        }
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
            c.rtmp.auth.keys = try publish.takeStrings("keys") ?? c.rtmp.auth.keys
            c.rtmp.auth.hmacSecret = try publish.string("hmac_secret").flatMap { $0.isEmpty ? nil : $0 }
            c.rtmp.auth.webhookURL = try publish.string("webhook_url").flatMap { $0.isEmpty ? nil : $0 }
            if let ms = try publish.int("webhook_timeout_ms", in: 100...60_000) {
                c.rtmp.auth.webhookTimeout = .milliseconds(ms)
            }
            if let rule = try publish.string("anonymous"), !rule.isEmpty {
                guard let a = PublishAuthConfiguration.Anonymous(rawValue: rule) else {
                    throw ConfigurationError(
                        key: "auth.publish.anonymous", allowed: "none, loopback or any (empty: automatic)", found: rule)
                }
                c.rtmp.auth.anonymous = a
            }
            if let url = c.rtmp.auth.webhookURL, !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
                throw ConfigurationError(key: "auth.publish.webhook_url", allowed: "an http:// or https:// URL", found: url)
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
