import Logging
import MediaCore
import StreamHub
import Synchronization
import Testing

@testable import Transcoder

/// The decoder thread's watch over rung queues: one warning with the rung's real-time factor when a rung stays
/// behind, one line when it keeps up again, nothing for a moment's backlog.
@Suite struct RungLoadMonitorTests {
    /// Keeps every log line with its metadata.
    final class LogSink: Sendable {
        let lines = Mutex<[(level: Logger.Level, message: String, metadata: Logger.Metadata)]>([])
        var logger: Logger { Logger(label: "ladder") { _ in Handler(sink: self) } }
        struct Handler: LogHandler {
            let sink: LogSink
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .debug
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) {
                sink.lines.withLock { $0.append((event.level, "\(event.message)", event.metadata ?? [:])) }
            }
        }
    }

    @Test func aRungBehindForThreeSecondsIsReportedOnceWithItsRealTimeFactorAndAgainWhenItRecovers() throws {
        let hub = StreamHub()
        let publication = try hub.publish(key: StreamKey("cam")!.rendition("720p"), origin: "test")
        let rung = PlannedRung(name: "720p", width: 1280, height: 720, videoBitRate: BitRate(kbps: 2_800))
        let meter = RungMeter(name: "720p", width: 1280, height: 720)
        // 60 pictures took 3 s to encode: 50 ms each, 1.5 s per second of 30 fps video.
        meter.update {
            $0.picturesEncoded = 60
            $0.busyTime = .seconds(3)
        }
        let worker = RungWorker(
            rung: rung,
            frameRate: 30,
            publication: publication,
            meter: meter,
            configuration: LadderConfiguration(),
            threads: 1,
            logger: Logger(label: "unused")
        )
        let sink = LogSink()
        var monitor = RungLoadMonitor()
        let t0 = ContinuousClock.now
        // The worker is not running: what is offered stays queued (capacity 30, bound 15).
        for _ in 0..<20 { worker.queue.offer(.finish, force: true) }
        for s in [0.0, 1, 2, 2.9] { monitor.check(worker, frameRate: 30, now: t0 + .seconds(s), logger: sink.logger) }
        #expect(sink.lines.withLock { $0.isEmpty }, "a backlog under 3 s is not reported")
        for s in [3.1, 4, 5] { monitor.check(worker, frameRate: 30, now: t0 + .seconds(s), logger: sink.logger) }
        let warnings = sink.lines.withLock { $0.filter { $0.level == .warning } }
        #expect(warnings.count == 1)
        #expect(warnings.first?.metadata["real_time_factor"] == "1.50")
        #expect(warnings.first?.metadata["queue"] == "20/30")
        // The queue drains; it must stay low for 3 s before the rung counts as keeping up.
        for _ in 0..<20 { _ = worker.queue.take() }
        for s in [6.0, 8] { monitor.check(worker, frameRate: 30, now: t0 + .seconds(s), logger: sink.logger) }
        #expect(sink.lines.withLock { $0.count } == 1)
        monitor.check(worker, frameRate: 30, now: t0 + .seconds(9.1), logger: sink.logger)
        let last = sink.lines.withLock { $0.last }
        #expect(last?.level == .info && last?.message == "ladder rung keeps up again")
        publication.end()
    }
}
