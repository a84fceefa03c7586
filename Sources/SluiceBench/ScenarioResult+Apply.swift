import MediaCore

extension ScenarioResult {
    /// Fills the model viewers' figures. "downloaded" counts frames captured after each viewer joined: the backlog
    /// it fetched on joining was downloadable long before it asked.
    mutating func apply(_ reports: [ViewerReport]) {
        viewers = reports.count
        let live = reports.flatMap { r in r.frames.filter { $0.capture >= r.joinedAt } }
        downloaded = LatencyPercentiles(samples: live.map { $0.available.duration(since: $0.capture) })
        glass = LatencyPercentiles(samples: reports.flatMap(\.playerLatencies))
        let joins = reports.compactMap { r in r.firstFrameAt.map { $0.duration(since: r.joinedAt) } }
        joinToFirstFrameMs = LatencyPercentiles(samples: joins)?.p50Ms
        frames = reports.map(\.frames.count).reduce(0, +)
        stalls = reports.map(\.stalls).reduce(0, +)
        requests = reports.map(\.requests).reduce(0, +)
        let all = reports.flatMap(\.errors)
        errorCount = all.count
        errors = Array(all.prefix(10))
    }

    /// Fills a real player's figures.
    mutating func apply(_ f: PlayerFigures) {
        glass = f.glass
        frames = f.glass?.count ?? 0
        unreadableFrames = f.unreadable
        missedFrames = f.missed
        publishToFirstFrameMs = f.publishToFirstFrameMs
        joinToFirstFrameMs = f.joinToFirstFrameMs
        joinGlass = f.joinGlass
        stalls = f.stalls
        stalledMs = f.stalledMs
        renditionSwitches = f.renditionSwitches
        heights = f.heights
        levelLoadErrors = f.levelLoadErrors
        fatalErrors = f.fatalErrors
        startupErrors = f.startupErrors
        afterEndErrors = f.afterEndErrors
        errorCount = f.errors
        errors = f.errorSamples
    }
}
