import FFmpegBridge
import LLHLSPackager
import Logging
import MediaCore
import StreamHub
import Telemetry
import Testing
import Transcoder

/// Frames from the test pattern go into the hub stamped as RTMP ingest stamps them, through the real ladder and
/// packager; every rung frame's stamps must read in pipeline order and every gateway hop must be recorded.
struct HopStampsPipelineTests {
    @Test func stampsStayMonotonicThroughLadderAndPackagerAndEveryHopIsRecorded() async throws {
        let hub = StreamHub()
        let telemetry = GatewayTelemetry()
        let key = StreamKey("hops")!
        var hls = LLHLSConfiguration()
        hls.segmentTarget = .seconds(1)
        let packager = LLHLSPackager(hub: hub, configuration: hls, logger: Logger(label: "test"), telemetry: telemetry)
        let packaging = Task { await packager.run() }
        defer { packaging.cancel() }

        var ladder = LadderConfiguration()
        // Queues that never drop: the source is pushed faster than real time.
        ladder.readerCapacity = 100_000
        ladder.decoderQueueCapacity = 100_000
        ladder.rungQueueCapacity = 100_000
        let source = try TestPatternSource(configuration: .init(duration: .seconds(3)))
        let publication = try hub.publish(key: key, origin: "test")
        let transcoder = try #require(
            LadderTranscoder(hub: hub, source: key, configuration: ladder, telemetry: telemetry)
        )
        publication.update(description: source.streamDescription)
        let transcoding = Task { await transcoder.run() }
        let rungs = ["480p", "360p"]
        try await eventually { Set(rungs.map { key.rendition($0) }).isSubset(of: Set(hub.liveKeys)) }
        var collectors: [String: Task<[MediaFrame], Never>] = [:]
        for name in rungs {
            let reader = try #require(hub.subscribe(key: key.rendition(name), name: "test", capacity: 100_000))
            collectors[name] = Task {
                var frames: [MediaFrame] = []
                while let event = await reader.next() { if case .frame(let f) = event { frames.append(f) } }
                return frames
            }
        }

        // As RTMPSessionHandler does: first byte, then parsed, then the SEI's capture clock and the ingest hop.
        var captures: [Int64: WallTime] = [:]
        while var frame = try source.nextFrame() {
            let firstByte = ContinuousClock.now
            frame.stamps = HopStamps(capture: .now(), firstByte: firstByte, ingested: .now, ingestWall: .now())
            if frame.kind == .video { captures[frame.pts.converted(to: 90_000).value] = frame.stamps.capture }
            let rendition = frame.kind.rawValue
            telemetry.record(
                .ingest,
                from: frame.stamps.firstByte,
                to: frame.stamps.ingested,
                stream: key,
                rendition: rendition
            )
            telemetry.countIngested(stream: key, rendition: rendition, bytes: frame.data.count)
            publication.send(frame)
        }
        publication.end()
        await transcoding.value

        for name in rungs {
            let frames = await collectors[name]!.value
            #expect(frames.count == captures.count, "\(name) lost frames")
            for f in frames {
                let s = f.stamps
                #expect(s.firstByte != nil && s.ingested != nil && s.decoded != nil && s.encoded != nil, "\(name) \(s)")
                #expect(s.isMonotonic, "\(name): \(s)")
                // A rung frame keeps its source frame's capture clock.
                #expect(s.capture == captures[f.pts.converted(to: 90_000).value], "\(name) pts \(f.pts)")
            }
        }

        // The packager lists the rungs' last parts when their publications end.
        try await eventually {
            rungs.allSatisfy {
                telemetry.percentiles(.package, stream: key, rendition: $0)?.count ?? 0 >= captures.count - 1
            }
        }
        let expected: [(Hop, String)] =
            [
                (.ingest, "video"), (.ingest, "audio"), (.decode, "video"), (.package, "video"), (.package, "audio"),
                (.available, "video"),
            ] + rungs.flatMap { [(.encode, $0), (.package, $0), (.available, $0)] }
        for (hop, rendition) in expected {
            let p = telemetry.percentiles(hop, stream: key, rendition: rendition)
            #expect((p?.count ?? 0) > 0, "no \(hop) samples for \(rendition)")
            if let p { #expect(p.p50Ms <= p.p90Ms && p.p90Ms <= p.p99Ms && p.p99Ms <= p.maxMs) }
        }
        #expect(telemetry.percentiles(.decode, stream: key, rendition: "video")?.count == captures.count)
        let summary = try #require(packager.stream(for: key)?.summary())
        #expect(summary.renditions.map(\.name) == ["video", "360p", "480p", "audio"])
        #expect(summary.renditions.first { $0.name == "480p" }?.hops["encode"]?.count == captures.count)
        #expect((summary.packageSamples) > 0)
    }

    /// Polls `condition` until it holds (the pipeline runs on other threads); fails after 30 s.
    private func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("condition not met within 30 s")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
