import Foundation

/// The WHEP rows' own figures under the shared table: the targets are stated at p95, and loss, audio, what the
/// gateway sent and the CPU per viewer have no column there.
extension BenchTable {
    static let whepHeadings = [
        "scenario", "viewers (receiving)", "sent", "glass p50/p95/p99", "join->1st frame p50/p95", "join->answer p50",
        "join->DTLS p50", "join rung (still on)", "video pkts (lost %)", "audio pkts", "PLIs", "CPU idle/watching %",
        "CPU per viewer %",
    ]

    /// One row per WHEP result that ran.
    static func whepRows(_ report: BenchReport) -> [[String]] {
        report.scenarios.compactMap { r -> [String]? in
            guard let w = r.whep else { return nil }
            func p(_ l: LatencyPercentiles?, _ keys: [KeyPath<LatencyPercentiles, Double>]) -> String {
                guard let l else { return "-" }
                return keys.map { ms(l[keyPath: $0]) }.joined(separator: "/")
            }
            let glass = w.glass.map { "\(ms($0.p50Ms))/\($0.p95Ms.map(ms) ?? "-")/\(ms($0.p99Ms))" } ?? "-"
            let join = w.joinToFirstFrame.map { "\(ms($0.p50Ms))/\($0.p95Ms.map(ms) ?? "-")" } ?? "-"
            let loss = (w.lossPercent * 100).rounded() / 100
            let cpu = [w.idleCPUPercent, w.watchingCPUPercent].map { $0.map { ms($0) } ?? "-" }.joined(separator: "/")
            return [
                r.id, "\(w.viewers) (\(w.receivingViewers))", w.video.joined(separator: ", "), glass, join,
                p(w.joinToAnswer, [\.p50Ms]), p(w.joinToConnected, [\.p50Ms]),
                w.joinedOnJoinRung.map { "\($0) (\(w.stillOnJoinRung ?? 0))" } ?? "-",
                "\(w.videoPacketsReceived) (\(loss))", "\(w.audioPacketsReceived)", "\(w.keyframeRequests)", cpu,
                w.cpuPerViewerPercent.map { String((($0 * 100).rounded()) / 100) } ?? "-",
            ]
        }
    }

    /// What the WHEP table measures, with whose CPU was read.
    static func whepLegend(_ report: BenchReport) -> String {
        let who = report.scenarios.compactMap { $0.whep?.cpuOf }.first ?? "-"
        return "WHEP: glass = capture -> the frame's last RTP packet arrived at the bench WHEP client (SRTP "
            + "decrypted, reassembled; before decode and jitter buffer); join = POST sent -> first complete frame "
            + "(a keyframe); join rung = viewers that joined on it (still on it as the publisher stopped: never taken "
            + "over by their own rendition); CPU of \(who), percent of one core, per viewer = (watching - idle) / viewers"
    }

    /// The WHEP table as aligned text; empty when no WHEP scenario ran.
    static func whepText(_ report: BenchReport) -> String {
        let rows = whepRows(report)
        guard !rows.isEmpty else { return "" }
        var widths = whepHeadings.map(\.count)
        for row in rows { for (i, c) in row.enumerated() { widths[i] = max(widths[i], c.count) } }
        let lines = ([whepHeadings] + rows).map { row in
            row.enumerated().map { i, c in c.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }
        return "\n" + lines.joined(separator: "\n") + "\n" + whepLegend(report) + "\n"
    }

    /// The WHEP table in Markdown; empty when no WHEP scenario ran.
    static func whepMarkdown(_ report: BenchReport) -> String {
        let rows = whepRows(report)
        guard !rows.isEmpty else { return "" }
        var out = [
            "", "| " + whepHeadings.joined(separator: " | ") + " |",
            "|" + whepHeadings.map { _ in "---" }.joined(separator: "|") + "|",
        ]
        out += rows.map { "| " + $0.joined(separator: " | ") + " |" }
        out += ["", whepLegend(report)]
        return out.joined(separator: "\n") + "\n"
    }
}
