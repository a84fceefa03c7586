import Foundation
import HTTPClient
import Synchronization
import WebRTCTransport

extension BenchRunner {
    /// How long the CPU of the stream without viewers is read before they join.
    static let idleCPUWindow: Duration = .seconds(3)

    /// The WHEP viewers of one stream: the CPU without viewers just before `from`, then `whepViewers` bench WHEP
    /// clients joining within `joinSpread`, the CPU once all watch, and what the gateway chose to send them.
    func watchWithWHEP(
        endpoint: String,
        profiles: [String],
        from: ContinuousClock.Instant,
        until deadline: ContinuousClock.Instant,
        publisherEnds: ContinuousClock.Instant,
        phase: borrowing Mutex<String>
    ) async throws(BenchError) -> ([WHEPViewerResult], WHEPFigures) {
        let url = try HTTPLocation(parsing: endpoint)
        let certificate: DTLSCertificate
        do { certificate = try DTLSCertificate(commonName: "sluice-bench-whep") } catch {
            throw .whepFailed(url: endpoint, reason: "DTLS certificate: \(error)")
        }
        let pid = options.gatewayPID.map { String($0) } ?? "self"
        let clock = ContinuousClock()
        try? await clock.sleep(until: from - Self.idleCPUWindow)
        let idleStart = ProcessUsage.read(pid: pid)
        try? await clock.sleep(until: from)
        let idleEnd = ProcessUsage.read(pid: pid)
        let count = max(1, options.whepViewers)
        phase.withLock { $0 = "\(count) WHEP viewers watching" }
        let spread = Self.joinSpread.milliseconds
        let logger = self.logger
        // Once every viewer joined and settled, until the publisher stops.
        let cpuFrom = from + Self.joinSpread + .seconds(1)
        let sampler = Task { () -> (Double?, [String], JoinRungCount?) in
            try? await clock.sleep(until: cpuFrom)
            let a = ProcessUsage.read(pid: pid)
            let sent = await Self.whepVideoChoices(origin: url)
            try? await clock.sleep(until: publisherEnds)
            let b = ProcessUsage.read(pid: pid)
            let joins = await Self.whepJoinRungCount(endpoint: url)
            return (a.flatMap { a in b.map { ProcessUsage.cpuPercent(from: a, to: $0) } }, sent, joins)
        }
        let results = await withTaskGroup(of: WHEPViewerResult.self) { group in
            for i in 0..<count {
                // Spread evenly, with jitter, so a fan-out is not one connect storm and joins meet every GOP phase.
                let offset = spread * (Double(i) + Double.random(in: 0..<1)) / Double(count)
                let join = from + .milliseconds(offset)
                group.addTask {
                    try? await clock.sleep(until: join)
                    let viewer = WHEPBenchViewer(
                        endpoint: url,
                        profiles: profiles,
                        certificate: certificate,
                        logger: logger
                    )
                    return await viewer.run(until: deadline)
                }
            }
            var all: [WHEPViewerResult] = []
            for await r in group { all.append(r) }
            return all
        }
        let (watching, sent, joins) = await sampler.value
        guard results.contains(where: { $0.firstFrameAt != nil }) else {
            throw .whepFailed(url: endpoint, reason: results.lazy.flatMap(\.errors).first ?? "no error reported")
        }
        var figures = WHEPFigures(results, profiles: profiles)
        figures.video = sent
        figures.joinedOnJoinRung = joins?.joined
        figures.stillOnJoinRung = joins?.stillOn
        let idle = idleStart.flatMap { a in idleEnd.map { ProcessUsage.cpuPercent(from: a, to: $0) } }
        figures.cpu(
            idle: idle,
            watching: watching,
            of: options.gatewayPID.map { "gateway pid \($0)" } ?? "bench process (embedded gateway, publisher, viewers)"
        )
        return (results, figures)
    }

    /// `--whep-watch URL`: the bench's WHEP viewers on a stream someone else publishes, as one `whep-watch` row.
    func watchExisting(_ url: HTTPLocation, date: String, loadBefore: [Double]) async -> BenchReport {
        let scenario = BenchScenario(
            id: "whep-watch",
            title: "\(options.whepViewers) bench WHEP viewers of \(url)",
            path: .whep(overWHIP: false, transcode: false, profiles: WHEPViewerOffer.anyProfile)
        )
        var result = ScenarioResult(scenario: scenario)
        result.rendition = url.description
        let from = ContinuousClock.now + Self.idleCPUWindow
        let ends = from + options.duration
        do throws(BenchError) {
            let (results, figures) = try await watchWithWHEP(
                endpoint: url.description,
                profiles: WHEPViewerOffer.anyProfile,
                from: from,
                until: ends,
                publisherEnds: ends,
                phase: Mutex("")
            )
            result.apply(results, figures: figures)
        } catch {
            result.skipped = "failed: \(error)"
        }
        var report = BenchReport(
            date: date,
            machine: BenchReport.describeMachine(),
            durationSeconds: options.duration.milliseconds / 1000,
            command: options.command,
            scenarios: [result]
        )
        report.loadBefore = loadBefore
        report.loadAfter = BenchReport.loadAverage()
        return report
    }

    /// How many of a stream's viewers joined on the join rung, and how many are still on it.
    struct JoinRungCount: Sendable {
        var joined: Int
        var stillOn: Int
    }

    /// The fields of `WHEPViewerReport` the bench reads.
    struct APIViewer: Decodable {
        var stream: String
        var video: String
        var joinedOnJoinRung: Bool?
        var onJoinRung: Bool?
    }

    /// Every viewer `/api/whep` on `origin`'s host lists now; nil when unread.
    static func whepViewers(origin: HTTPLocation) async -> [APIViewer]? {
        let url = HTTPLocation(host: origin.host, port: origin.port, target: "/api/whep")
        guard let r = try? await HTTPClient(userAgent: "sluice-bench").request("GET", url), r.status == 200 else {
            return nil
        }
        return try? JSONDecoder().decode([APIViewer].self, from: Data(r.body))
    }

    /// `/api/whep`'s join-rung flags for the viewers of the stream `endpoint` (`/whep/KEY`) names; nil when unread.
    static func whepJoinRungCount(endpoint: HTTPLocation) async -> JoinRungCount? {
        guard let viewers = await whepViewers(origin: endpoint) else { return nil }
        let path = endpoint.target.split(separator: "?").first ?? ""
        let key = path.split(separator: "/").last.map(String.init) ?? ""
        let mine = viewers.filter { $0.stream == key }
        return JoinRungCount(
            joined: mine.filter { $0.joinedOnJoinRung == true }.count,
            stillOn: mine.filter { $0.onJoinRung == true }.count
        )
    }

    /// What `/api/whep` says the gateway sends its viewers (`passthrough`, `rung 480p`, `webrtc-rung`), first-seen.
    static func whepVideoChoices(origin: HTTPLocation) async -> [String] {
        var seen: [String] = []
        for v in await whepViewers(origin: origin) ?? [] where !seen.contains(v.video) { seen.append(v.video) }
        return seen
    }
}
