import Foundation
import Yams

/// `SLUICE_<SECTION>_<KEY>` environment variables, applied over the file and under command-line flags
/// (e.g. `SLUICE_HTTP_PORT=8081`, `SLUICE_HLS_PART_TARGET_MS=300`, `SLUICE_HTTP_TLS_CERT=/etc/sluice/cert.pem`).
///
/// The name is the dotted key path in upper case with `_` for `.`; values are read as YAML scalars, so lists work
/// too (`SLUICE_TRANSCODE_RUNGS='[{height: 480, video_kbps: 1400}]'`). Names that match no section and no top-level
/// key are not ours and are left alone (`SLUICE_CONFIG` names the file; test harnesses use others).
struct EnvironmentOverrides {
    /// Overrides as (dotted key path, raw value, variable name), sorted by variable name.
    let overrides: [(path: [String], value: String, variable: String)]
    /// Variables that look like ours but name an unknown key of a known section.
    let unknown: [String]

    init(_ environment: [String: String]) {
        let defaults = SluiceConfiguration().tree
        // Longest section first, so SLUICE_HTTP_TLS_CERT is http.tls.cert and not http.tls_cert.
        let sections = defaults.sectionPaths.sorted { $0.count > $1.count }
        let leaves = Set(defaults.leafPaths)
        var found: [(path: [String], value: String, variable: String)] = []
        var unknown: [String] = []
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) where name.hasPrefix("SLUICE_") {
            let rest = name.dropFirst("SLUICE_".count).lowercased()
            if let section = sections.first(where: { rest.hasPrefix($0.replacingOccurrences(of: ".", with: "_") + "_") }
            ) {
                let key = String(rest.dropFirst(section.count + 1))
                let path = section + "." + key
                if leaves.contains(path) {
                    found.append((path.split(separator: ".").map(String.init), value, name))
                } else {
                    unknown.append(name)
                }
            } else if leaves.contains(rest) {
                found.append(([rest], value, name))
            }
        }
        overrides = found
        self.unknown = unknown
    }

    /// Writes each override into the parsed YAML tree.
    func apply(to root: inout [String: Any]) throws {
        if let name = unknown.first {
            throw ConfigurationError(
                key: name,
                allowed: "SLUICE_<SECTION>_<KEY> naming a documented key (see Config/sluice.yaml)",
                found: "no such key"
            )
        }
        for o in overrides {
            try Self.set(Self.scalar(o.value), at: o.path[...], in: &root, prefix: "")
        }
    }

    /// The value as YAML reads it (`8081` is a number, `true` a boolean), or the raw text if it is not YAML.
    private static func scalar(_ text: String) -> Any {
        guard let v = try? Yams.load(yaml: text) else { return text }
        return v
    }

    private static func set(
        _ value: Any,
        at path: ArraySlice<String>,
        in map: inout [String: Any],
        prefix: String
    ) throws {
        guard let head = path.first else { return }
        let here = prefix.isEmpty ? head : "\(prefix).\(head)"
        if path.count == 1 {
            map[head] = value
            return
        }
        var child: [String: Any]
        switch map[head] {
        case nil: child = [:]
        case let m as [String: Any]: child = m
        case let other?: throw ConfigurationError(key: here, allowed: "a mapping", found: "\(other)")
        }
        try set(value, at: path.dropFirst(), in: &child, prefix: here)
        map[head] = child
    }
}

extension SluiceConfiguration {
    /// The file `sluice serve` reads: `explicit`, else `$SLUICE_CONFIG`, else `Config/sluice.yaml` when present.
    public static func configPath(explicit: String?, environment: [String: String]) -> String? {
        if let explicit { return explicit }
        if let p = environment["SLUICE_CONFIG"], !p.isEmpty { return p }
        return FileManager.default.fileExists(atPath: "Config/sluice.yaml") ? "Config/sluice.yaml" : nil
    }

    /// Defaults, then the file (if any), then `SLUICE_*` overrides: what `serve` starts from before its flags.
    public static func effective(file: String?, environment: [String: String]) throws -> SluiceConfiguration {
        if let path = configPath(explicit: file, environment: environment) {
            return try load(path: path, environment: environment)
        }
        return try parse(yaml: "", environment: environment)
    }
}
