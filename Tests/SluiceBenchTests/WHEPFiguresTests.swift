import Foundation
import MediaCore
import Testing

@testable import SluiceBench

/// What the WHEP viewers' results become: p95 glass and join, loss, CPU per viewer, and the WHEP table.
struct WHEPFiguresTests {
    static let t0 = WallTime(nanosecondsSince1970: 1_764_000_000_000_000_000)

    static func at(_ ms: Int64) -> WallTime { WallTime(nanosecondsSince1970: t0.nanosecondsSince1970 + ms * 1_000_000) }

    /// A viewer that joined at `join` ms, had its first frame `first` ms later, and saw frames `glass` ms late.
    static func viewer(join: Int64, first: Int64?, glass: [Int64], lost: Int = 0) -> WHEPViewerResult {
        var r = WHEPViewerResult(joinedAt: at(join))
        r.answeredAt = at(join + 2)
        r.connectedAt = at(join + 6)
        r.firstFrameAt = first.map { at(join + $0) }
        r.frames = glass.enumerated().map { i, g in
            let capture = at(join + 1_000 + Int64(i) * 33)
            let done = WallTime(nanosecondsSince1970: capture.nanosecondsSince1970 + g * 1_000_000)
            return ViewerFrame(capture: capture, available: done, displayed: done)
        }
        r.framesReceived = glass.count
        r.videoPacketsReceived = glass.count * 3
        r.videoPacketsLost = lost
        r.audioPacketsReceived = 50
        return r
    }

    @Test func figuresPoolFramesAndTakeOneJoinPerViewer() throws {
        let results = [
            Self.viewer(join: 0, first: 100, glass: Array(repeating: 40, count: 19) + [90], lost: 3),
            Self.viewer(join: 500, first: 900, glass: Array(repeating: 40, count: 20)),
            Self.viewer(join: 900, first: nil, glass: []),
        ]
        var f = WHEPFigures(results, profiles: ["42e01f"])
        #expect(f.viewers == 3 && f.receivingViewers == 2)
        let glass = try #require(f.glass)
        #expect(glass.count == 40 && glass.p50Ms == 40 && glass.p95Ms == 40 && glass.p99Ms == 90)
        let join = try #require(f.joinToFirstFrame)
        #expect(join.count == 2 && join.p50Ms == 100 && join.p95Ms == 900)
        #expect(f.joinsMs == [100, 900, nil])
        #expect(f.joinToAnswer?.p50Ms == 2 && f.joinToConnected?.p50Ms == 6)
        #expect(f.videoPacketsLost == 3 && f.videoPacketsReceived == 120)
        #expect(abs(f.lossPercent - 3.0 / 123 * 100) < 1e-9)
        #expect(f.fewestFramesPerViewer == 0 && f.audioPacketsReceived == 150)
        f.cpu(idle: 10, watching: 40, of: "gateway pid 7")
        #expect(f.cpuPerViewerPercent == 10)
        // Without an idle reading there is nothing to subtract from: no per-viewer figure.
        f.cpu(idle: nil, watching: 40, of: "bench process")
        #expect(f.cpuPerViewerPercent == nil && f.watchingCPUPercent == 40)
    }

    @Test func whepRowsGetTheirOwnTableAndSurviveJSON() throws {
        var result = ScenarioResult(scenario: try #require(BenchScenario.named("rtmp-whep")))
        let results = [Self.viewer(join: 0, first: 120, glass: [38, 40, 41, 80])]
        var figures = WHEPFigures(results, profiles: ["640033"])
        figures.video = ["passthrough"]
        figures.joinedOnJoinRung = 1
        figures.stillOnJoinRung = 0
        figures.cpu(idle: 20, watching: 28, of: "gateway pid 7")
        result.apply(results, figures: figures)
        #expect(result.glass?.p50Ms == 40 && result.joinToFirstFrameMs == 120 && result.frames == 4)
        let llhls = ScenarioResult(scenario: try #require(BenchScenario.named("rtmp-llhls")))
        let report = BenchReport(
            date: "d",
            machine: "m",
            durationSeconds: 30,
            command: "c",
            scenarios: [llhls, result]
        )
        let text = BenchTable.text(report)
        let whepTable = try #require(text.range(of: "glass p50/p95/p99"))
        let row = try #require(text[whepTable.upperBound...].split(separator: "\n").first { $0.hasPrefix("rtmp-whep") })
        #expect(row.contains("1 (1)") && row.contains("passthrough") && row.contains("40/80/80"))
        #expect(row.contains("120/120") && row.contains("20/28") && row.contains("8.0") && row.contains("1 (0)"))
        #expect(text.contains("join rung (still on)"))
        #expect(text.contains("CPU of gateway pid 7"))
        #expect(BenchTable.markdown(report).contains("| rtmp-whep | 1 (1) | passthrough | 40/80/80 |"))
        #expect(try JSONDecoder().decode(BenchReport.self, from: Data(report.json())) == report)
        // No WHEP row, no WHEP table.
        let plain = BenchReport(date: "d", machine: "m", durationSeconds: 30, command: "c", scenarios: [llhls])
        #expect(!BenchTable.text(plain).contains("glass p50/p95/p99"))
    }

    @Test func whepScenariosAreWatchedOnlyByTheBenchClient() throws {
        let ids = BenchScenario.all.filter(\.isWHEP).map(\.id)
        #expect(ids == ["rtmp-whep", "rtmp-whep-ladder", "whip-whep"])
        let ladder = try #require(BenchScenario.named("rtmp-whep-ladder"))
        guard case .whep(let overWHIP, let transcode, let profiles) = ladder.path else {
            Issue.record("not a WHEP path")
            return
        }
        #expect(!overWHIP && transcode && profiles == ["42e01f"])
        #expect(BenchScenario.named("whip-whep").map { $0.lowLatencyViewer && $0.unavailableReason == nil } == true)
    }
}
