import CodecFormats
import Foundation
import LLHLSPackager
import Logging
import MediaCore
import RTMPIngest
import Recorder
import Transcoder
import Yams

extension SluiceConfiguration {
    /// Reads a YAML file, then `SLUICE_<SECTION>_<KEY>` overrides from `environment`; absent keys keep their defaults,
    /// unknown keys are errors (typos must not pass silently).
    public static func load(path: String, environment: [String: String] = [:]) throws -> SluiceConfiguration {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError(
                key: "(file)",
                allowed: "a readable YAML file",
                found: "\(path): \(error.localizedDescription)"
            )
        }
        return try parse(yaml: text, environment: environment)
    }

    /// Parses YAML text, then applies `SLUICE_<SECTION>_<KEY>` overrides from `environment`.
    public static func parse(yaml text: String, environment: [String: String] = [:]) throws -> SluiceConfiguration {
        let loaded: Any?
        do {
            loaded = try Yams.load(yaml: text)
        } catch {
            throw ConfigurationError(key: "(file)", allowed: "valid YAML", found: "\(error)")
        }
        guard var root = loaded as? [String: Any] ?? (loaded == nil ? [:] : nil) else {
            throw ConfigurationError(key: "(root)", allowed: "a mapping", found: "\(type(of: loaded))")
        }
        try EnvironmentOverrides(environment).apply(to: &root)
        return try parse(tree: root)
    }

    /// Reads the parsed YAML tree.
    static func parse(tree root: [String: Any]) throws -> SluiceConfiguration {
        var c = SluiceConfiguration()
        var r = ConfigReader(values: root, prefix: "")
        c.bind = try r.string("bind") ?? c.bind
        if var rtmp = try r.section("rtmp") {
            c.rtmpPort = try rtmp.int("port", in: 0...65535) ?? c.rtmpPort
            c.rtmp.chunkSize = try rtmp.int("chunk_size", in: 128...65536) ?? c.rtmp.chunkSize
            c.rtmp.maxMessageSize = try rtmp.int("max_message_size", in: 65536...(64 << 20)) ?? c.rtmp.maxMessageSize
            if let s = try rtmp.int("idle_timeout_s", in: 1...3600) { c.rtmp.idleTimeout = .seconds(s) }
            try readRTMPSecurity(&rtmp, into: &c)
            try rtmp.finish()
        }
        if var ingest = try r.section("ingest") {
            try readIngest(&ingest, into: &c)
            try ingest.finish()
        }
        if var srt = try r.section("srt") {
            try readSRT(&srt, into: &c)
            try srt.finish()
        }
        if var webrtc = try r.section("webrtc") {
            try readWebRTC(&webrtc, into: &c)
            try webrtc.finish()
        }
        if var whep = try r.section("whep") {
            try readWHEP(&whep, into: &c)
            try whep.finish()
        }
        if var http = try r.section("http") {
            c.httpPort = try http.int("port", in: 0...65535) ?? c.httpPort
            c.http2 = try http.bool("http2") ?? c.http2
            if let s = try http.double("drain_delay_s", in: 0...60) { c.drainDelay = .milliseconds(Int64(s * 1000)) }
            if var tls = try http.section("tls") {
                c.tlsCertificate = try tls.string("cert").flatMap { $0.isEmpty ? nil : $0 }
                c.tlsKey = try tls.string("key").flatMap { $0.isEmpty ? nil : $0 }
                try tls.finish()
            }
            try http.finish()
        }
        if var hls = try r.section("hls") {
            c.hls.lowLatency = try hls.bool("low_latency") ?? c.hls.lowLatency
            if let ms = try hls.int("part_target_ms", in: 100...2000) { c.hls.partTarget = .milliseconds(ms) }
            if let s = try hls.double("segment_target_s", in: 1...10) {
                c.hls.segmentTarget = .milliseconds(Int64(s * 1000))
            }
            c.hls.windowSegments = try hls.int("window_segments", in: 6...60) ?? c.hls.windowSegments
            if let s = try hls.int("dvr_window_s", in: 0...86_400) { c.hls.dvrWindow = s == 0 ? nil : .seconds(s) }
            if let s = try hls.int("reconnect_grace_s", in: 0...300) { c.hls.reconnectGrace = .seconds(s) }
            if let s = try hls.int("ended_retention_s", in: 0...3600) { c.hls.endedRetention = .seconds(s) }
            if let s = try hls.int("start_wait_s", in: 0...30) { c.hls.startWait = .seconds(s) }
            if let s = try hls.double("first_segment_s", in: 0...1) {
                c.hls.firstSegment = s == 0 ? nil : EarlyFirstSegment(length: .milliseconds(Int64(s * 1000)))
            }
            c.hls.firstSegmentCutsPassthrough =
                try hls.bool("first_segment_cuts_passthrough") ?? c.hls.firstSegmentCutsPassthrough
            try hls.finish()
        }
        if var log = try r.section("log") {
            if let level = try log.string("level") {
                guard let l = Logger.Level(rawValue: level) else {
                    throw ConfigurationError(
                        key: "log.level",
                        allowed: "one of trace, debug, info, notice, warning, error, critical",
                        found: level
                    )
                }
                c.logLevel = l
            }
            if let format = try log.string("format") {
                guard let f = LogFormat(rawValue: format) else {
                    throw ConfigurationError(key: "log.format", allowed: "one of text, logfmt, json", found: format)
                }
                c.logFormat = f
            }
            try log.finish()
        }
        if var rec = try r.section("record") {
            c.record.enabled = try rec.bool("enabled") ?? c.record.enabled
            c.record.directory = try rec.string("dir") ?? c.record.directory
            if let names = try rec.strings("renditions") {
                c.record.renditions = names == ["all"] ? [] : Set(names)
            }
            if let h = try rec.double("max_age_h", in: 0...100_000) {
                c.record.maxAge = h == 0 ? nil : .seconds(h * 3600)
            }
            if let mb = try rec.int("max_size_mb", in: 0...100_000_000) {
                c.record.maxBytes = mb == 0 ? nil : mb * 1_000_000
            }
            try rec.finish()
        }
        if var t = try r.section("transcode") {
            c.transcode = try t.bool("enabled") ?? c.transcode
            c.ladder.maxRungs = try t.int("max_rungs", in: 0...8) ?? c.ladder.maxRungs
            if let preset = try t.string("preset") {
                c.ladder.preset = try Self.preset(preset, key: "transcode.preset")
            }
            if var shed = try t.section("shed") {
                c.ladder.shedding.enabled = try shed.bool("enabled") ?? c.ladder.shedding.enabled
                if let preset = try shed.string("preset") {
                    c.ladder.shedding.fastPreset =
                        preset == "none" ? nil : try Self.preset(preset, key: "transcode.shed.preset", orNone: true)
                }
                if let s = try shed.double("patience_s", in: 0.5...60) {
                    c.ladder.shedding.patience = .milliseconds(Int64(s * 1000))
                }
                if let s = try shed.double("recovery_s", in: 1...600) {
                    c.ladder.shedding.recovery = .milliseconds(Int64(s * 1000))
                }
                try shed.finish()
            }
            if let top = try t.string("source_rendition") {
                guard let policy = LadderConfiguration.SourceRendition(rawValue: top) else {
                    let allowed = LadderConfiguration.SourceRendition.allCases.map(\.rawValue).joined(separator: ", ")
                    throw ConfigurationError(
                        key: "transcode.source_rendition",
                        allowed: "one of \(allowed)",
                        found: top
                    )
                }
                c.ladder.sourceRendition = policy
            }
            c.ladder.fastStart = try t.bool("fast_start") ?? c.ladder.fastStart
            if let rungs = try t.list("rungs") {
                c.ladder.rungs = try rungs.enumerated().map { i, item in
                    var rung = ConfigReader(values: item, prefix: "transcode.rungs[\(i)]")
                    let height = try rung.int("height", in: 144...2160) ?? 0
                    let kbps = try rung.int("video_kbps", in: 100...50_000) ?? 0
                    guard height > 0, kbps > 0 else {
                        throw ConfigurationError(
                            key: "transcode.rungs[\(i)]",
                            allowed: "height and video_kbps",
                            found: "\(item)"
                        )
                    }
                    let name = try rung.string("name") ?? "\(height)p"
                    try rung.finish()
                    return LadderConfiguration.Rung(name: name, height: height, videoBitRate: BitRate(kbps: kbps))
                }
            }
            try t.finish()
        }
        if var demo = try r.section("demo") {
            c.demoKey = try demo.string("key") ?? c.demoKey
            try demo.finish()
        }
        if var api = try r.section("api") {
            c.adminToken = try api.string("admin_token").flatMap { $0.isEmpty ? nil : $0 }
            try api.finish()
        }
        if var cluster = try r.section("cluster") {
            try readCluster(&cluster, into: &c)
            try cluster.finish()
        }
        if var pages = try r.section("pages") {
            c.hlsjsURL = try pages.string("hlsjs_url") ?? c.hlsjsURL
            try pages.finish()
        }
        try readSecurity(&r, into: &c)
        try r.finish()
        try c.validate()
        return c
    }

    /// An x264 preset the ladder accepts (`none` too where the preset step can be skipped).
    static func preset(_ value: String, key: String, orNone: Bool = false) throws -> String {
        let allowed = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium"]
        guard allowed.contains(value) else {
            let names = (allowed + (orNone ? ["none"] : [])).joined(separator: ", ")
            throw ConfigurationError(key: key, allowed: "one of \(names)", found: value)
        }
        return value
    }

    /// Cross-field rules.
    public func validate() throws {
        try validateOrigin()
        try validateWebRTC()
        try validateSRT()
        try validateCluster()
        if hls.partTarget * 3 > hls.segmentTarget {
            throw ConfigurationError(
                key: "hls.part_target_ms",
                allowed: "at most a third of hls.segment_target_s",
                found: "\(hls.partTarget.milliseconds) ms with a \(hls.segmentTarget) segment target"
            )
        }
        if let first = hls.firstSegment?.length, first < hls.partTarget {
            throw ConfigurationError(
                key: "hls.first_segment_s",
                allowed: "0 (off) or at least hls.part_target_ms",
                found: "\(first) with \(hls.partTarget.milliseconds) ms parts"
            )
        }
    }
}

/// Typed, path-aware access to one YAML mapping.
struct ConfigReader {
    var values: [String: Any]
    let prefix: String
    private var seen: Set<String> = []

    init(values: [String: Any], prefix: String) {
        self.values = values
        self.prefix = prefix
    }

    private func path(_ k: String) -> String { prefix.isEmpty ? k : "\(prefix).\(k)" }

    mutating func string(_ k: String) throws -> String? {
        seen.insert(k)
        guard let v = values[k] else { return nil }
        if let s = v as? String { return s }
        // An env override or an unquoted YAML scalar such as `key: 1234` is still a fine string.
        if v is Int || v is Double { return "\(v)" }
        throw ConfigurationError(key: path(k), allowed: "a string", found: "\(v)")
    }

    mutating func strings(_ k: String) throws -> [String]? {
        seen.insert(k)
        guard let v = values[k] else { return nil }
        if let s = v as? String {
            return s.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        }
        guard let l = v as? [String], !l.isEmpty else {
            throw ConfigurationError(key: path(k), allowed: "a list of strings", found: "\(v)")
        }
        return l
    }

    mutating func int(_ k: String, in range: ClosedRange<Int>) throws -> Int? {
        seen.insert(k)
        guard let v = values[k] else { return nil }
        guard let i = v as? Int, range.contains(i) else {
            throw ConfigurationError(
                key: path(k),
                allowed: "an integer in \(range.lowerBound)...\(range.upperBound)",
                found: "\(v)"
            )
        }
        return i
    }

    mutating func double(_ k: String, in range: ClosedRange<Double>) throws -> Double? {
        seen.insert(k)
        guard let v = values[k] else { return nil }
        let d = (v as? Double) ?? (v as? Int).map(Double.init)
        guard let d, range.contains(d) else {
            throw ConfigurationError(
                key: path(k),
                allowed: "a number in \(range.lowerBound)...\(range.upperBound)",
                found: "\(v)"
            )
        }
        return d
    }

    mutating func bool(_ k: String) throws -> Bool? {
        seen.insert(k)
        guard let v = values[k] else { return nil }
        guard let b = v as? Bool else {
            throw ConfigurationError(key: path(k), allowed: "true or false", found: "\(v)")
        }
        return b
    }

    mutating func list(_ k: String) throws -> [[String: Any]]? {
        seen.insert(k)
        guard let v = values[k] else { return nil }
        guard let l = v as? [[String: Any]] else {
            throw ConfigurationError(key: path(k), allowed: "a list of mappings", found: "\(v)")
        }
        return l
    }

    mutating func section(_ k: String) throws -> ConfigReader? {
        seen.insert(k)
        guard let v = values[k] else { return nil }
        guard let m = v as? [String: Any] else {
            throw ConfigurationError(key: path(k), allowed: "a mapping", found: "\(v)")
        }
        return ConfigReader(values: m, prefix: path(k))
    }

    func finish() throws {
        if let unknown = values.keys.sorted().first(where: { !seen.contains($0) }) {
            throw ConfigurationError(
                key: path(unknown),
                allowed: "a documented key (see Config/sluice.yaml)",
                found: "unknown key"
            )
        }
    }
}
