import Logging

extension BenchRunner {
    /// The model viewers, each joining at `from` plus its own random offset within `joinSpread`.
    func watchWithModels(
        _ scenario: BenchScenario,
        url: String,
        from: ContinuousClock.Instant,
        until deadline: ContinuousClock.Instant,
        publisherEnds: ContinuousClock.Instant
    ) async throws(BenchError) -> [ViewerReport] {
        let logger = self.logger
        let spread = Self.joinSpread.milliseconds
        let results = await withTaskGroup(of: Result<ViewerReport, BenchError>.self) { group in
            for _ in 0..<max(1, options.modelViewers) {
                let join = from + .milliseconds(Double.random(in: 0..<spread))
                group.addTask {
                    try? await ContinuousClock().sleep(until: join)
                    do throws(BenchError) {
                        return .success(
                            scenario.lowLatencyViewer
                                ? try await LLHLSViewer(playlistURL: url, logger: logger).run(
                                    until: deadline,
                                    publisherEnds: publisherEnds
                                )
                                : try await ClassicHLSViewer(playlistURL: url, logger: logger).run(until: deadline)
                        )
                    } catch {
                        return .failure(error)
                    }
                }
            }
            var all: [Result<ViewerReport, BenchError>] = []
            for await r in group { all.append(r) }
            return all
        }
        var reports: [ViewerReport] = []
        for r in results {
            switch r {
            case .success(let report): reports.append(report)
            case .failure(let error): throw error
            }
        }
        return reports
    }
}
