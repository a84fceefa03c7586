import FFmpegBridge
import Foundation
import Logging
import MediaCore
import StreamHub
import Synchronization

/// Publishes the test pattern (1280x720, 30 fps, 1 s GOP, 440 Hz tone) into the hub in real time until cancelled.
///
/// x264 runs on its own thread so encoding never occupies a NIO event loop or a cooperative-pool thread.
public func runDemoStream(hub: StreamHub, key: StreamKey, logger: Logger) async throws {
    let publication = try hub.publish(key: key, origin: "demo", role: .derived)
    defer { publication.end() }
    let stop = DemoStopFlag()
    logger.info("demo stream started", metadata: ["stream": "\(key)"])
    try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            let thread = Thread {
                do {
                    try DemoEncoderLoop(publication: publication, stop: stop).run()
                    done.resume()
                } catch {
                    done.resume(throwing: error)
                }
            }
            thread.name = "sluice-demo-encoder"
            thread.start()
        }
    } onCancel: {
        stop.raise()
    }
    logger.info("demo stream stopped", metadata: ["stream": "\(key)", "frames": "\(publication.framesIn)"])
}

/// Tells the encoder thread to finish.
final class DemoStopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func raise() { flag.store(true, ordering: .releasing) }
    var isRaised: Bool { flag.load(ordering: .acquiring) }
}

/// The blocking encode-and-pace loop the demo thread runs.
struct DemoEncoderLoop {
    let publication: Publication
    let stop: DemoStopFlag

    func run() throws {
        var configuration = TestPatternSource.Configuration(width: 1280, height: 720, fps: 30)
        // CBR: the source's measured BANDWIDTH stays above its rungs', so players list it as the top level.
        configuration.constantBitRate = true
        let source = try TestPatternSource(configuration: configuration)
        publication.update(description: source.streamDescription)
        let clock = ContinuousClock()
        let start = clock.now
        var origin: MediaTime?
        while !stop.isRaised, var frame = try source.nextFrame() {
            let first = origin ?? frame.dts
            origin = first
            let due = start.advanced(by: (frame.dts - first).duration)
            // Sleep in short slices so a cancel is seen within a few tens of milliseconds.
            while !stop.isRaised, clock.now < due {
                Thread.sleep(forTimeInterval: min(0.05, (due - clock.now).secondsDouble))
            }
            if stop.isRaised { break }
            frame.stamps.ingested = clock.now
            frame.stamps.ingestWall = WallTime.now()
            publication.send(frame)
        }
    }
}
