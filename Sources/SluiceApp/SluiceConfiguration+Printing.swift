import CodecFormats
import LLHLSPackager
import Logging
import MediaCore
import RTMPIngest
import Recorder
import Transcoder
import Yams

/// A key path's value in the effective configuration, in file order (what `sluice config print` writes).
indirect enum ConfigNode: Sendable, Equatable {
    case int(Int)
    case double(Double)
    case bool(Bool)
    case string(String)
    case map([Entry])
    case list([ConfigNode])

    /// One key and its value.
    struct Entry: Sendable, Equatable {
        var key: String
        var value: ConfigNode
    }

    /// The value under a direct key of a map.
    subscript(key: String) -> ConfigNode? {
        guard case .map(let entries) = self else { return nil }
        return entries.first { $0.key == key }?.value
    }

    /// Every leaf key path (`http.tls.cert`), lists counting as leaves.
    var leafPaths: [String] {
        guard case .map(let entries) = self else { return [] }
        return entries.flatMap { e -> [String] in
            if case .map = e.value { return e.value.leafPaths.map { "\(e.key).\($0)" } }
            return [e.key]
        }
    }

    /// Every section path (`http`, `http.tls`).
    var sectionPaths: [String] {
        guard case .map(let entries) = self else { return [] }
        return entries.flatMap { e -> [String] in
            guard case .map = e.value else { return [] }
            return [e.key] + e.value.sectionPaths.map { "\(e.key).\($0)" }
        }
    }
}

extension SluiceConfiguration {
    /// The effective configuration as a tree with the file's keys and order.
    var tree: ConfigNode {
        func m(_ pairs: KeyValuePairs<String, ConfigNode>) -> ConfigNode {
            .map(pairs.map { .init(key: $0.key, value: $0.value) })
        }
        let rungs: [ConfigNode] = ladder.rungs.map {
            m([
                "name": .string($0.name), "height": .int($0.height),
                "video_kbps": .int(Int($0.videoBitRate.bitsPerSecond / 1000)),
            ])
        }
        let printed = m([
            "bind": .string(bind),
            "rtmp": m([
                "port": .int(rtmpPort), "chunk_size": .int(rtmp.chunkSize),
                "max_message_size": .int(rtmp.maxMessageSize),
                "idle_timeout_s": .int(Int(rtmp.idleTimeout.components.seconds)),
            ]),
            "webrtc": webrtcTree,
            "whep": whepTree,
            "ingest": ingestTree,
            "srt": srtTree,
            "http": m([
                "port": .int(httpPort), "http2": .bool(http2), "drain_delay_s": .double(drainDelay.secondsDouble),
                "tls": m(["cert": .string(tlsCertificate ?? ""), "key": .string(tlsKey ?? "")]),
            ]),
            "hls": m([
                "low_latency": .bool(hls.lowLatency),
                "part_target_ms": .int(Int(hls.partTarget.milliseconds)),
                "segment_target_s": .double(hls.segmentTarget.secondsDouble),
                "window_segments": .int(hls.windowSegments),
                "dvr_window_s": .int(Int(hls.dvrWindow?.components.seconds ?? 0)),
                "reconnect_grace_s": .int(Int(hls.reconnectGrace.components.seconds)),
                "ended_retention_s": .int(Int(hls.endedRetention.components.seconds)),
                "start_wait_s": .int(Int(hls.startWait.components.seconds)),
                "first_segment_s": .double(hls.firstSegment?.length.secondsDouble ?? 0),
                "first_segment_cuts_passthrough": .bool(hls.firstSegmentCutsPassthrough),
            ]),
            "record": m([
                "enabled": .bool(record.enabled), "dir": .string(record.directory),
                "max_age_h": .double((record.maxAge?.secondsDouble ?? 0) / 3600),
                "max_size_mb": .int((record.maxBytes ?? 0) / 1_000_000),
                "renditions": .list(
                    (record.renditions.isEmpty ? ["all"] : record.renditions.sorted()).map { .string($0) }
                ),
            ]),
            "transcode": m([
                "enabled": .bool(transcode), "preset": .string(ladder.preset), "max_rungs": .int(ladder.maxRungs),
                "source_rendition": .string(ladder.sourceRendition.rawValue),
                "fast_start": .bool(ladder.fastStart),
                "shed": m([
                    "enabled": .bool(ladder.shedding.enabled), "preset": .string(ladder.shedding.fastPreset ?? "none"),
                    "patience_s": .double(ladder.shedding.patience.secondsDouble),
                    "recovery_s": .double(ladder.shedding.recovery.secondsDouble),
                ]),
                "rungs": .list(rungs),
            ]),
            "api": m(["admin_token": .string(adminToken ?? "")]),
            "log": m(["level": .string(level(logLevel)), "format": .string(logFormat.rawValue)]),
            "pages": m(["hlsjs_url": .string(hlsjsURL)]),
            "demo": m(["key": .string(demoKey)]),
            "cluster": clusterTree,
        ])
        return Self.withSecurity(printed, rtmp: rtmpSecurityTree, sections: securityTree)
    }

    /// Adds the keys of SluiceConfiguration+Security.swift: under `rtmp`, and `limits`/`auth` at the end.
    private static func withSecurity(
        _ tree: ConfigNode,
        rtmp: [ConfigNode.Entry],
        sections: [ConfigNode.Entry]
    ) -> ConfigNode {
        guard case .map(var entries) = tree else { return tree }
        if let i = entries.firstIndex(where: { $0.key == "rtmp" }), case .map(let r) = entries[i].value {
            entries[i].value = .map(r + rtmp)
        }
        return .map(entries + sections)
    }

    private func level(_ l: Logger.Level) -> String { l.rawValue }

    /// The effective configuration as YAML that `parse(yaml:)` reads back to the same values.
    public func yamlText() -> String {
        var out = "# Effective Sluice configuration (defaults, then the file, then SLUICE_* environment overrides).\n"
        Self.emit(tree, indent: "", into: &out)
        return out
    }

    private static func emit(_ node: ConfigNode, indent: String, into out: inout String) {
        guard case .map(let entries) = node else { return }
        for e in entries {
            switch e.value {
            case .map:
                out += "\(indent)\(e.key):\n"
                emit(e.value, indent: indent + "  ", into: &out)
            case .list(let items):
                out += "\(indent)\(e.key):\(items.isEmpty ? " []" : "")\n"
                for item in items { out += "\(indent)  - \(flow(item))\n" }
            default:
                out += "\(indent)\(e.key): \(flow(e.value))\n"
            }
        }
    }

    /// One value on one line (flow style for nested maps).
    private static func flow(_ node: ConfigNode) -> String {
        switch node {
        case .int(let i): return "\(i)"
        case .double(let d): return d == d.rounded() && abs(d) < 1e15 ? "\(Int(d))" : "\(d)"
        case .bool(let b): return b ? "true" : "false"
        case .string(let s): return quoted(s)
        case .list(let items): return "[" + items.map(flow).joined(separator: ", ") + "]"
        case .map(let entries):
            return "{ " + entries.map { "\($0.key): \(flow($0.value))" }.joined(separator: ", ") + " }"
        }
    }

    /// Plain when YAML reads it back as this very string, double-quoted otherwise.
    private static func quoted(_ s: String) -> String {
        let plain = !s.isEmpty && !s.contains(where: { ",{}[]#&*!|>'\"%@`".contains($0) })
        if plain, let back = try? Yams.load(yaml: s) as? String, back == s { return s }
        var escaped = ""
        for ch in s.unicodeScalars {
            switch ch {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(ch)
            }
        }
        return "\"\(escaped)\""
    }
}

extension SluiceConfiguration {
    /// Every leaf key path written in a YAML text (`http.tls.cert`), lists counting as leaves: what a file documents.
    static func keyPaths(yaml text: String) throws -> [String] {
        func walk(_ map: [String: Any], _ prefix: String) -> [String] {
            map.keys.sorted().flatMap { k -> [String] in
                let path = prefix.isEmpty ? k : "\(prefix).\(k)"
                if let child = map[k] as? [String: Any] { return walk(child, path) }
                return [path]
            }
        }
        return walk((try Yams.load(yaml: text) as? [String: Any]) ?? [:], "")
    }
}
