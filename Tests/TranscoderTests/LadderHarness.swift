import FFmpegBridge
import Foundation
import MediaCore
import MediaTestSupport
import StreamHub
import Transcoder

/// Publishes prepared source segments into a hub, runs a LadderTranscoder on them, and collects every rung.
struct LadderHarness {
    /// What one rung publication delivered.
    struct RungOutput {
        var descriptions: [StreamDescription] = []
        var frames: [MediaFrame] = []
        var ended = false
    }

    /// A run's result.
    struct Result {
        var rungs: [String: RungOutput]
        var statistics: [RungStatistics]
        var droppedAccessUnits: Int
        var wallTime: Duration
    }

    /// Queues big enough that a faster-than-real-time test never drops.
    static var losslessConfiguration: LadderConfiguration {
        var c = LadderConfiguration()
        c.readerCapacity = 100_000
        c.decoderQueueCapacity = 100_000
        c.rungQueueCapacity = 100_000
        return c
    }

    /// Source frames with a capture SEI injected into every video access unit and distinctive stamps.
    static func withCaptureSEI(_ frames: [MediaFrame], firstCaptureMS: Int64) throws -> [MediaFrame] {
        var index: Int64 = 0
        return try frames.map { f in
            guard f.kind == .video else { return f }
            var out = f
            let capture = firstCaptureMS + index * 33
            index += 1
            out.data = try CaptureSEI.inject(captureMS: capture, into: f.data)
            out.stamps = HopStamps(
                capture: WallTime(millisecondsSince1970: capture),
                ingestWall: WallTime(millisecondsSince1970: capture + 7)
            )
            return out
        }
    }

    /// `frames` moved later by `offset` (to append a second segment on the same timeline).
    static func shifted(_ frames: [MediaFrame], by offset: MediaTime) -> [MediaFrame] {
        frames.map { f in
            var out = f
            out.dts = f.dts + offset
            return out
        }
    }

    /// Publishes `segments` (each a description then its frames) and returns what the rungs received; `lateRungs` are
    /// claimed only once the ladder sees the first keyframe.
    static func run(
        segments: [(StreamDescription, [MediaFrame])],
        expectedRungs: [String],
        lateRungs: [String] = [],
        configuration: LadderConfiguration = losslessConfiguration
    ) async throws -> Result {
        let hub = StreamHub()
        let key = StreamKey("cam")!
        let publication = try hub.publish(key: key, origin: "test")
        let transcoder = try requireValue(
            LadderTranscoder(hub: hub, source: key, configuration: configuration),
            "transcoder"
        )
        publication.update(description: segments[0].0)
        let started = ContinuousClock.now
        let running = Task { await transcoder.run() }
        let rungKeys = expectedRungs.map { key.rendition($0) }
        let deadline = ContinuousClock.now + .seconds(20)
        while !Set(rungKeys).isSubset(of: Set(hub.liveKeys)) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        var collectors: [String: Task<RungOutput, Never>] = [:]
        func collect(_ name: String, _ rungKey: StreamKey) {
            guard let reader = hub.subscribe(key: rungKey, name: "test", capacity: 100_000) else { return }
            collectors[name] = Task {
                var out = RungOutput()
                while let event = await reader.next() {
                    switch event {
                    case .description(let d): out.descriptions.append(d)
                    case .frame(let f): out.frames.append(f)
                    case .ended: out.ended = true
                    }
                }
                return out
            }
        }
        for (name, rungKey) in zip(expectedRungs, rungKeys) { collect(name, rungKey) }
        var late = lateRungs
        for (i, (description, frames)) in segments.enumerated() {
            if i > 0 { publication.update(description: description) }
            for f in frames {
                publication.send(f)
                // A rung claimed at the first keyframe (the fast-start bridge): subscribed before its x264 opens.
                guard !late.isEmpty, f.kind == .video else { continue }
                let until = ContinuousClock.now + .seconds(5)
                while !late.isEmpty, ContinuousClock.now < until {
                    for name in late where hub.liveKeys.contains(key.rendition(name)) {
                        collect(name, key.rendition(name))
                        late.removeAll { $0 == name }
                    }
                    try await Task.sleep(for: .microseconds(200))
                }
            }
        }
        publication.end()
        await running.value
        let wall = ContinuousClock.now - started
        var rungs: [String: RungOutput] = [:]
        for (name, task) in collectors { rungs[name] = await task.value }
        return Result(
            rungs: rungs,
            statistics: transcoder.statistics,
            droppedAccessUnits: transcoder.droppedAccessUnits,
            wallTime: wall
        )
    }
}

/// Unwraps or throws, for setup steps outside a test body.
func requireValue<T>(_ value: T?, _ what: String = "value") throws -> T {
    guard let value else { throw TestMediaError.unexpectedProbe("missing \(what)") }
    return value
}
