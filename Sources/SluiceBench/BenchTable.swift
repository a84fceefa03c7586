import Foundation

/// The comparison as text: one row per scenario and player, each latency cell `p50/p90/p99` in milliseconds.
public enum BenchTable {
    /// Column headings after the scenario name and the player; each names what it measures.
    static let headings =
        GatewayHops.order + [
            "capture->downloaded", "glass capture->shown", "publish->playable", "publish->1st frame", "join->1st frame",
            "join glass p50/p95", "frames", "stalls (ms)", "switches", "errors",
        ]

    /// What each column measures, printed under the table.
    static let legend = [
        "latency cells: p50/p90/p99 ms over every frame; capture = the publisher's clock when the test pattern made "
            + "the picture, before encoding",
        "ingest..deliver: the gateway's own hops; capture->downloaded: frame's part/segment fully downloaded by a "
            + "model viewer (publisher encode + network + gateway + fetch)",
        "glass: frame shown (real players: presented by Chromium, clock read from the pixels; model: the player "
            + "model's display instant, clock from the SEI)",
        "publish->playable: publish start -> first part (classic: segment) listed; publish->1st frame: publish start "
            + "-> first frame a real player presented",
        "join->1st frame: viewer opened on the running stream -> its first frame (model: median over its viewers)",
        "join glass p50/p95: that joining viewer's glass over the frames it showed after its first (real players)",
        "errors: all (before the publisher stopped: level load errors, fatal errors, errors before the first frame; "
            + "then errors after it stopped); stalls: waiting events after the first frame (their summed ms)",
    ]

    /// The cells of one row after the scenario name and player.
    static func cells(_ r: ScenarioResult) -> [String] {
        if let why = r.skipped { return ["skipped: \(why)"] }
        func cell(_ p: LatencyPercentiles?) -> String {
            guard let p else { return "-" }
            return "\(ms(p.p50Ms))/\(ms(p.p90Ms))/\(ms(p.p99Ms))"
        }
        let stalls = r.player == .model ? "\(r.stalls)" : "\(r.stalls) (\(ms(r.stalledMs)))"
        let errors =
            r.player == .model
            ? "\(r.errorCount)"
            : "\(r.errorCount) (\(r.levelLoadErrors), \(r.fatalErrors), \(r.startupErrors), \(r.afterEndErrors))"
        return GatewayHops.order.map { cell(r.hops[$0]) } + [
            cell(r.downloaded), cell(r.glass), r.publishToPlayableMs.map(ms) ?? "-",
            r.publishToFirstFrameMs.map(ms) ?? "-",
            r.joinToFirstFrameMs.map(ms) ?? "-",
            r.joinGlass.map { "\(ms($0.p50Ms))/\($0.p95Ms.map(ms) ?? "-")" } ?? "-", "\(r.frames)", stalls,
            r.player == .model ? "-" : "\(r.renditionSwitches)",
            errors,
        ]
    }

    /// Whole milliseconds below 10 s, one decimal below 10 ms.
    static func ms(_ v: Double) -> String {
        v < 10 ? String(Double((v * 10).rounded()) / 10) : String(Int(v.rounded()))
    }

    /// An aligned plain-text table for the terminal.
    public static func text(_ report: BenchReport) -> String {
        let header = ["scenario", "player"] + headings
        let rows = report.scenarios.map { [$0.id, $0.player.rawValue] + cells($0) }
        var widths = header.map(\.count)
        for row in rows where row.count == header.count {
            for (i, c) in row.enumerated() { widths[i] = max(widths[i], c.count) }
        }
        func line(_ row: [String]) -> String {
            row.enumerated().map { i, c in
                i < widths.count && row.count == header.count
                    ? c.padding(toLength: widths[i], withPad: " ", startingAt: 0) : c
            }.joined(separator: "  ")
        }
        var out = [line(header)]
        out += rows.map { line($0) }
        out += legend
        return out.joined(separator: "\n") + "\n" + whepText(report)
    }

    /// The same table in Markdown, for docs/BENCHMARKS.md.
    public static func markdown(_ report: BenchReport) -> String {
        let header = ["scenario", "player"] + headings
        var out = [
            "| " + header.joined(separator: " | ") + " |", "|" + header.map { _ in "---" }.joined(separator: "|") + "|",
        ]
        for r in report.scenarios {
            var row = ["`\(r.id)`", r.player.rawValue] + cells(r)
            if row.count < header.count { row += Array(repeating: "", count: header.count - row.count) }
            out.append("| " + row.joined(separator: " | ") + " |")
        }
        return out.joined(separator: "\n") + "\n" + whepMarkdown(report)
    }
}
