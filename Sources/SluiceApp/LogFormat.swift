/// How log lines are written (`log.format`).
public enum LogFormat: String, Sendable, CaseIterable {
    /// swift-log's default human-readable lines.
    case text
    /// `key=value` pairs (Heroku/Grafana Loki logfmt).
    case logfmt
    /// One JSON object per line.
    case json
}
