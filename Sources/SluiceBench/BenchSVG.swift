/// The comparison as a hand-written SVG: one stacked horizontal bar per scenario, a colour per hop, ms axis.
///
/// Each bar stacks p50s: the gateway hops, then what is left of "capture->downloaded" (publisher encode, network,
/// HTTP fetch), then the player's buffer up to glass-to-glass p50. Medians do not add exactly; the bar's end is the
/// measured glass p50 and the whisker its p90. Real players have no download figure: their bar is glass alone.
public enum BenchSVG {
    /// One stacked piece: legend name and colour.
    struct Piece {
        var name: String
        var colour: String
    }

    static let pieces: [String: Piece] = [
        "ingest": Piece(name: "ingest", colour: "#4e79a7"),
        "decode": Piece(name: "decode", colour: "#f28e2b"),
        "encode": Piece(name: "encode", colour: "#e15759"),
        "package": Piece(name: "package", colour: "#76b7b2"),
        "deliver": Piece(name: "deliver", colour: "#59a14f"),
        "upstream": Piece(name: "publisher encode + network + fetch (rest of capture->downloaded)", colour: "#edc948"),
        "player": Piece(name: "player (downloaded -> shown)", colour: "#b07aa1"),
    ]
    static let stackOrder = GatewayHops.order + ["upstream", "player"]

    /// The stacked segments of one result, in order, milliseconds.
    static func segments(_ r: ScenarioResult) -> [(key: String, ms: Double)] {
        var out: [(String, Double)] = []
        var sum = 0.0
        for hop in GatewayHops.order {
            guard let p = r.hops[hop]?.p50Ms, p > 0 else { continue }
            out.append((hop, p))
            sum += p
        }
        if let a = r.downloaded?.p50Ms, a > sum {
            out.append(("upstream", a - sum))
            sum = a
        }
        if let g = r.glass?.p50Ms, g > sum { out.append(("player", g - sum)) }
        return out
    }

    /// A round axis step giving 4 to 10 ticks up to `max` ms.
    static func tickStep(_ max: Double) -> Double {
        for step in [50.0, 100, 250, 500, 1000, 2000, 5000, 10000] where max / step <= 10 { return step }
        return 20000
    }

    /// The SVG document.
    public static func render(_ report: BenchReport) -> String {
        let rows = report.scenarios
        let width = 980.0
        let left = 190.0
        let right = 40.0
        let top = 58.0
        let barHeight = 26.0
        let rowGap = 20.0
        let plot = width - left - right
        let maxMs = max(1000, rows.map { max($0.glass?.p90Ms ?? 0, $0.downloaded?.p50Ms ?? 0) }.max() ?? 0) * 1.05
        let step = tickStep(maxMs)
        let axisEnd = (maxMs / step).rounded(.up) * step
        let x = { (ms: Double) -> Double in left + plot * ms / axisEnd }
        let chartBottom = top + Double(rows.count) * (barHeight + rowGap)
        let legendRows = Double((stackOrder.count + 1) / 2)
        let height = chartBottom + 40 + legendRows * 20 + 30
        var s: [String] = []
        s.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        s.append(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(f(width))\" height=\"\(f(height))\" "
                + "viewBox=\"0 0 \(f(width)) \(f(height))\" font-family=\"sans-serif\" font-size=\"12\">"
        )
        s.append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>")
        s.append(
            "<text x=\"\(f(left))\" y=\"22\" font-size=\"15\" font-weight=\"bold\">"
                + "sluice bench: where glass-to-glass latency goes (p50 per hop, whisker = glass p90)</text>"
        )
        s.append(
            "<text x=\"\(f(left))\" y=\"40\" fill=\"#555\">\(escape("\(report.date) · \(report.machine) · \(Int(report.durationSeconds)) s per scenario"))</text>"
        )
        // Axis and grid.
        var t = 0.0
        while t <= axisEnd + 0.5 {
            let gx = x(t)
            s.append(
                "<line x1=\"\(f(gx))\" y1=\"\(f(top - 6))\" x2=\"\(f(gx))\" y2=\"\(f(chartBottom))\" stroke=\"#e4e4e4\"/>"
            )
            s.append(
                "<text x=\"\(f(gx))\" y=\"\(f(chartBottom + 16))\" text-anchor=\"middle\" fill=\"#333\">\(label(t))</text>"
            )
            t += step
        }
        s.append(
            "<text x=\"\(f(left + plot / 2))\" y=\"\(f(chartBottom + 32))\" text-anchor=\"middle\" fill=\"#333\">"
                + "time from capture</text>"
        )
        for (i, r) in rows.enumerated() {
            let y = top + Double(i) * (barHeight + rowGap)
            s.append(
                "<text x=\"\(f(left - 8))\" y=\"\(f(y + barHeight / 2 + 4))\" text-anchor=\"end\">\(escape(r.id))</text>"
            )
            s.append(
                "<text x=\"\(f(left - 8))\" y=\"\(f(y + barHeight / 2 + 17))\" text-anchor=\"end\" fill=\"#777\" "
                    + "font-size=\"10\">\(escape(r.player.rawValue))</text>"
            )
            if let why = r.skipped {
                s.append(
                    "<text x=\"\(f(left + 6))\" y=\"\(f(y + barHeight / 2 + 4))\" fill=\"#888\" font-style=\"italic\">"
                        + "\(escape("not run: \(why)"))</text>"
                )
                continue
            }
            var start = 0.0
            for seg in segments(r) {
                let piece = pieces[seg.key]!
                s.append(
                    "<rect x=\"\(f(x(start)))\" y=\"\(f(y))\" width=\"\(f(max(0.5, x(start + seg.ms) - x(start))))\" "
                        + "height=\"\(f(barHeight))\" fill=\"\(piece.colour)\"><title>\(escape("\(seg.key): \(BenchTable.ms(seg.ms)) ms"))</title></rect>"
                )
                start += seg.ms
            }
            if let p = r.glass {
                let cy = y + barHeight / 2
                s.append(
                    "<line x1=\"\(f(x(p.p50Ms)))\" y1=\"\(f(cy))\" x2=\"\(f(x(p.p90Ms)))\" y2=\"\(f(cy))\" stroke=\"#222\"/>"
                )
                s.append(
                    "<line x1=\"\(f(x(p.p90Ms)))\" y1=\"\(f(y + 6))\" x2=\"\(f(x(p.p90Ms)))\" y2=\"\(f(y + barHeight - 6))\" stroke=\"#222\"/>"
                )
                s.append(
                    "<text x=\"\(f(x(p.p90Ms) + 6))\" y=\"\(f(cy + 4))\" fill=\"#222\">\(escape("p50 \(seconds(p.p50Ms)) s"))</text>"
                )
            } else {
                s.append(
                    "<text x=\"\(f(x(start) + 6))\" y=\"\(f(y + barHeight / 2 + 4))\" fill=\"#888\">no viewer frames</text>"
                )
            }
        }
        // Legend, two columns.
        let legendTop = chartBottom + 48
        for (i, key) in stackOrder.enumerated() {
            let piece = pieces[key]!
            let lx = left + Double(i % 2) * plot / 2
            let ly = legendTop + Double(i / 2) * 20
            s.append("<rect x=\"\(f(lx))\" y=\"\(f(ly - 10))\" width=\"12\" height=\"12\" fill=\"\(piece.colour)\"/>")
            s.append("<text x=\"\(f(lx + 18))\" y=\"\(f(ly))\">\(escape(piece.name))</text>")
        }
        s.append("</svg>")
        return s.joined(separator: "\n") + "\n"
    }

    private static func f(_ v: Double) -> String { String(Double((v * 10).rounded()) / 10) }

    private static func label(_ ms: Double) -> String { ms >= 1000 ? "\(seconds(ms)) s" : "\(Int(ms))" }

    private static func seconds(_ ms: Double) -> String { String(Double((ms / 10).rounded()) / 100) }

    /// XML text escaping.
    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
