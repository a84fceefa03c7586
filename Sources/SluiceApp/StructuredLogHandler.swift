import Foundation
import Logging

/// A swift-log handler writing one logfmt or JSON line per event to stderr, metadata included (stream, session, ...).
public struct StructuredLogHandler: LogHandler {
    /// Line format: `.logfmt` or `.json` (`.text` renders as logfmt; use StreamLogHandler for text).
    public let format: LogFormat
    /// The logger's label, written as `logger`.
    public let label: String
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    /// Creates a handler for `label`.
    public init(label: String, format: LogFormat, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.format = format
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        let line = Self.render(
            format: format,
            time: Date(),
            level: event.level,
            message: "\(event.message)",
            label: label,
            metadata: merged
        )
        StructuredLogOutput.write(line + "\n")
    }

    /// One line without its newline: `time`, `level`, `msg`, `logger`, then metadata keys sorted.
    public static func render(
        format: LogFormat,
        time: Date,
        level: Logger.Level,
        message: String,
        label: String,
        metadata: Logger.Metadata
    ) -> String {
        let stamp = timestamp(time)
        let keys = metadata.keys.sorted()
        switch format {
        case .json:
            var fields = [
                "\"time\":\(jsonString(stamp))", "\"level\":\(jsonString(level.rawValue))",
                "\"msg\":\(jsonString(message))", "\"logger\":\(jsonString(label))",
            ]
            for k in keys where !["time", "level", "msg", "logger"].contains(k) {
                fields.append("\(jsonString(k)):\(json(metadata[k]!))")
            }
            return "{" + fields.joined(separator: ",") + "}"
        case .logfmt, .text:
            var pairs = [
                "time=\(stamp)", "level=\(level.rawValue)", "msg=\(logfmtValue(message))",
                "logger=\(logfmtValue(label))",
            ]
            for k in keys where !["time", "level", "msg", "logger"].contains(k) {
                pairs.append("\(logfmtKey(k))=\(logfmtValue(flat(metadata[k]!)))")
            }
            return pairs.joined(separator: " ")
        }
    }

    /// RFC 3339 UTC with milliseconds.
    static func timestamp(_ date: Date) -> String {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var t = time_t(ms / 1000)
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
            Int(parts.tm_year) + 1900,
            Int(parts.tm_mon) + 1,
            Int(parts.tm_mday),
            Int(parts.tm_hour),
            Int(parts.tm_min),
            Int(parts.tm_sec),
            Int(ms % 1000)
        )
    }

    /// A metadata value as JSON: strings, arrays and objects keep their shape.
    static func json(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let s): return jsonString(s)
        case .stringConvertible(let c): return jsonString(c.description)
        case .array(let a): return "[" + a.map(json).joined(separator: ",") + "]"
        case .dictionary(let d):
            return "{" + d.keys.sorted().map { "\(jsonString($0)):\(json(d[$0]!))" }.joined(separator: ",") + "}"
        }
    }

    /// A JSON string literal (RFC 8259 §7).
    static func jsonString(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20: out += String(format: "\\u%04x", u.value)
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }

    /// A metadata value flattened to text for logfmt.
    static func flat(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let s): return s
        case .stringConvertible(let c): return c.description
        case .array(let a): return "[" + a.map(flat).joined(separator: ",") + "]"
        case .dictionary(let d):
            return "{" + d.keys.sorted().map { "\($0):\(flat(d[$0]!))" }.joined(separator: ",") + "}"
        }
    }

    /// Keys keep letters, digits, `_`, `.`, `-`; anything else becomes `_` so a line always splits on spaces.
    static func logfmtKey(_ k: String) -> String {
        let cleaned = String(
            k.unicodeScalars.map { c -> Character in
                (c.properties.isAlphabetic || ("0"..."9").contains(c) || "_.-".unicodeScalars.contains(c))
                    ? Character(c) : "_"
            }
        )
        return cleaned.isEmpty ? "_" : cleaned
    }

    /// Bare when safe, else double-quoted with `"`, `\` and control characters escaped.
    static func logfmtValue(_ v: String) -> String {
        let needsQuotes =
            v.isEmpty
            || v.unicodeScalars.contains { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "\\" || $0.value < 0x20 }
        guard needsQuotes else { return v }
        return jsonString(v)
    }
}

/// Serialises whole lines onto stderr so concurrent loggers never interleave within a line.
enum StructuredLogOutput {
    private static let lock = NSLock()

    static func write(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        FileHandle.standardError.write(Data(line.utf8))
    }
}

/// Installs the process-wide log handler for `sluice serve` (call once, before any Logger is made).
public enum SluiceLogging {
    /// text: swift-log's StreamLogHandler on stderr; logfmt/json: ``StructuredLogHandler``.
    public static func bootstrap(format: LogFormat, level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            switch format {
            case .text:
                var h = StreamLogHandler.standardError(label: label)
                h.logLevel = level
                return h
            case .logfmt, .json:
                var h = StructuredLogHandler(label: label, format: format)
                h.logLevel = level
                return h
            }
        }
    }
}
