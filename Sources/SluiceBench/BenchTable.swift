import Foundation

/// The comparison as text: one row per scenario, each latency cell `p50/p90/p99` in milliseconds.
public enum BenchTable {
    /// Column headings after the scenario name.
    static let headings = GatewayHops.order + ["available", "player glass", "TTFF pub", "TTFF join"]

    /// The cells of one row after the scenario name.
    static func cells(_ r: ScenarioResult) -> [String] {
        if let why = r.skipped { return ["skipped: \(why)"] }
        func cell(_ p: LatencyPercentiles?) -> String {
            guard let p else { return "-" }
            return "\(ms(p.p50Ms))/\(ms(p.p90Ms))/\(ms(p.p99Ms))"
        }
        return GatewayHops.order.map { cell(r.hops[$0]) } + [
            cell(r.available), cell(r.player), r.ttffPublishMs.map(ms) ?? "-", r.ttffJoinMs.map(ms) ?? "-",
        ]
    }

    /// Whole milliseconds below 10 s, one decimal below 10 ms.
    static func ms(_ v: Double) -> String {
        v < 10 ? String(Double((v * 10).rounded()) / 10) : String(Int(v.rounded()))
    }

    /// An aligned plain-text table for the terminal.
    public static func text(_ report: BenchReport) -> String {
        let header = ["scenario"] + headings
        let rows = report.scenarios.map { [$0.id] + cells($0) }
        var widths = header.map(\.count)
        for row in rows where row.count == header.count {
            for (i, c) in row.enumerated() { widths[i] = max(widths[i], c.count) }
        }
        func line(_ row: [String]) -> String {
            row.enumerated().map { i, c in
                i < widths.count && row.count == header.count ? c.padding(toLength: widths[i], withPad: " ", startingAt: 0) : c
            }.joined(separator: "  ")
        }
        var out = [line(header)]
        out += rows.map { line($0) }
        out.append("latency cells: p50/p90/p99 ms; TTFF pub: publish start -> first playable part listed; "
            + "TTFF join: viewer join -> first frame shown")
        return out.joined(separator: "\n") + "\n"
    }

    /// The same table in Markdown, for docs/BENCHMARKS.md.
    public static func markdown(_ report: BenchReport) -> String {
        let header = ["scenario"] + headings
        var out = ["| " + header.joined(separator: " | ") + " |", "|" + header.map { _ in "---" }.joined(separator: "|") + "|"]
        for r in report.scenarios {
            var row = ["`\(r.id)`"] + cells(r)
            if row.count < header.count { row += Array(repeating: "", count: header.count - row.count) }
            out.append("| " + row.joined(separator: " | ") + " |")
        }
        return out.joined(separator: "\n") + "\n"
    }
}
