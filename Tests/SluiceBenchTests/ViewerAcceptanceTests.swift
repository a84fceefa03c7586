import CodecFormats
import FFmpegBridge
import Foundation
import HTTPClient
import Logging
import MediaCore
import MediaSources
import RTMPPublish
import SluiceApp
import TestSupport
import Testing

@testable import SluiceBench

/// The whole path a bench scenario takes, in process: the RTMP publisher stamping its clock, the gateway, and a
/// viewer; then an independent reading of what the viewer saved (libavformat demux + libavcodec decode).
@Suite(.serialized) struct ViewerAcceptanceTests {
    static let logger = Logger(label: "bench-test")

    /// Runs the gateway on free loopback ports while `body` runs, publishing the test pattern as `bench`.
    static func withPublishingGateway(
        transcode: Bool,
        lowLatency: Bool = true,
        publishFor: Duration,
        _ body: (_ httpBase: String) async throws -> Void
    ) async throws {
        var c = try SluiceConfiguration.parse(
            yaml: """
                hls: { low_latency: \(lowLatency), part_target_ms: 200 }
                transcode: { enabled: \(transcode) }
                ingest: { slate: false }

                """
        )
        c.bind = "127.0.0.1"
        c.rtmpPort = ExternalTool.freePort()
        c.httpPort = ExternalTool.freePort()
        // The WebRTC UDP port is exclusive: a test gateway never takes a running gateway's 8189.
        c.webrtcPort = ExternalTool.freePort()
        c.srtPort = 0
        let app = GatewayApp(configuration: c, demo: false, logger: logger)
        let gateway = Task { try await app.run() }
        defer { gateway.cancel() }
        let probe = HTTPConnection(host: "127.0.0.1", port: c.httpPort)
        for _ in 0..<100 {
            if (try? await probe.get("/healthz", timeout: .seconds(1))) != nil { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        await probe.close()
        let url = "rtmp://127.0.0.1:\(c.rtmpPort)/live/bench"
        let publisher = Task {
            try await publish(
                input: .testPattern(width: 640, height: 480, fps: 30, gopFrames: 30, bFrames: 0),
                to: url,
                duration: publishFor,
                logger: logger
            )
        }
        defer { publisher.cancel() }
        try await body("http://127.0.0.1:\(c.httpPort)")
        publisher.cancel()
        _ = await publisher.result
        gateway.cancel()
        _ = await gateway.result
    }

    /// One line of the viewer's manifest.
    struct ManifestLine: Decodable {
        var file: String
        var kind: String
        var arrival_ns: Int64
        var captures_ns: [Int64?]
    }

    /// Demuxes `bytes` (an init segment followed by fragments) with libavformat: the video frames.
    static func demux(_ bytes: [UInt8], in dir: URL, name: String) throws -> (frames: [MediaFrame], avcC: [UInt8]?) {
        let path = dir.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let source = try MediaFileSource(path: path)
        var frames: [MediaFrame] = []
        while let frame = try source.nextFrame() {
            if frame.kind == .video { frames.append(frame) }
        }
        return (frames, source.streamDescription.video?.decoderConfiguration)
    }

    /// Checks the viewer against libav's reading of the files it saved; returns the available-latency p50.
    static func checkAgainstLibav(_ report: ViewerReport, saved dir: URL) throws -> Duration {
        let text = try String(contentsOf: dir.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
        let lines = try text.split(separator: "\n").map {
            try JSONDecoder().decode(ManifestLine.self, from: Data($0.utf8))
        }
        let scratch = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        // Arrival of each frame by pts, from demuxing every part on its own after its init segment.
        var initBytes: [UInt8] = []
        var all: [UInt8] = []
        var arrivalByPTS: [MediaTime: WallTime] = [:]
        for line in lines {
            let bytes = Array(try Data(contentsOf: dir.appendingPathComponent(line.file)))
            if line.kind == "init" {
                initBytes = bytes
                if all.isEmpty { all = bytes }
                continue
            }
            all += bytes
            for frame in try demux(initBytes + bytes, in: scratch, name: "one.mp4").frames {
                arrivalByPTS[frame.pts.converted(to: 90_000)] = WallTime(nanosecondsSince1970: line.arrival_ns)
            }
        }
        // Capture clock of each frame by pts, as libavcodec exports the SEI.
        let (frames, avcC) = try demux(all, in: scratch, name: "all.mp4")
        let decoder = try H264Decoder(avcC: try #require(avcC))
        var captureByPTS: [MediaTime: WallTime] = [:]
        for picture in try frames.flatMap({ try decoder.decode($0) }) + decoder.flush() {
            if let clock = picture.userDataUnregistered.lazy.compactMap(CaptureTimeSEI.captureTime(inPayload:)).first {
                captureByPTS[picture.pts.converted(to: 90_000)] = clock
            }
        }
        #expect(captureByPTS.count == frames.count, "every decoded picture carries the clock")
        // Same frames: the viewer's clocks are exactly the decoder's.
        #expect(Set(report.frames.map(\.capture)) == Set(captureByPTS.values))
        #expect(report.frames.count == captureByPTS.count)
        let ptsByCapture = Dictionary(captureByPTS.map { ($0.value, $0.key) }, uniquingKeysWith: { a, _ in a })
        var worst = Duration.zero
        for frame in report.frames {
            let pts = try #require(ptsByCapture[frame.capture])
            let arrival = try #require(arrivalByPTS[pts])
            let independent = arrival.duration(since: frame.capture)
            let viewer = frame.available.duration(since: frame.capture)
            let difference = independent - viewer
            worst = max(worst, difference < .zero ? .zero - difference : difference)
        }
        #expect(worst < .milliseconds(100), "viewer vs libav available latency differ by up to \(worst)")
        let sorted = report.availableLatencies.sorted()
        return sorted[sorted.count / 2]
    }

    @Test func llhlsViewerMatchesLibavReadingOfThePassthroughStream() async throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await Self.withPublishingGateway(transcode: false, publishFor: .seconds(14)) { base in
            let viewer = LLHLSViewer(
                playlistURL: "\(base)/live/bench/index.m3u8",
                saveMediaTo: dir.path,
                logger: Self.logger
            )
            let report = try await viewer.run(until: .now + .seconds(11))
            #expect(report.frames.count > 150)
            #expect(report.errors.isEmpty, "\(report.errors)")
            let p50 = try Self.checkAgainstLibav(report, saved: dir)
            let player = report.playerLatencies.sorted()
            let playerP50 = try #require(player.isEmpty ? nil : player[player.count / 2])
            print(
                "passthrough LL-HLS 200 ms parts: available p50 \(p50), player p50 \(playerP50), stalls \(report.stalls)"
            )
            #expect(p50 > .zero && p50 < .seconds(3))
            #expect(playerP50 >= p50 && playerP50 < .seconds(3))
            #expect(report.firstFrameAt.map { $0 > report.joinedAt } == true)
        }
    }

    @Test func llhlsViewerEndsCleanlyWhenThePublisherStops() async throws {
        let publishFor = Duration.seconds(8)
        let publishing = ContinuousClock.now
        try await Self.withPublishingGateway(transcode: false, publishFor: publishFor) { base in
            let viewer = LLHLSViewer(playlistURL: "\(base)/live/bench/index.m3u8", logger: Self.logger)
            let deadline = ContinuousClock.now + .seconds(16)
            let report = try await viewer.run(until: deadline, publisherEnds: publishing + publishFor)
            // The reload that times out after the last part ends the watch: no error, well before the deadline.
            #expect(report.frames.count > 30)
            #expect(report.errors.isEmpty, "\(report.errors)")
            #expect(ContinuousClock.now < deadline - .seconds(2))
        }
    }

    @Test func captureClockSurvivesTheLadderIntoARungRendition() async throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await Self.withPublishingGateway(transcode: true, publishFor: .seconds(13)) { base in
            let viewer = LLHLSViewer(
                playlistURL: "\(base)/live/bench/360p.m3u8",
                saveMediaTo: dir.path,
                logger: Self.logger
            )
            let report = try await viewer.run(until: .now + .seconds(10))
            #expect(report.frames.count > 90)
            let p50 = try Self.checkAgainstLibav(report, saved: dir)
            print("ladder 360p LL-HLS 200 ms parts: available p50 \(p50)")
            #expect(p50 > .zero && p50 < .seconds(3))
        }
    }

    @Test func classicViewerStartsThreeSegmentsBehind() async throws {
        try await Self.withPublishingGateway(transcode: false, lowLatency: false, publishFor: .seconds(16)) { base in
            // Let three segments exist, as a player arriving at a running stream would find them.
            let probe = try HTTPConnection(origin: HTTPLocation(parsing: base + "/"))
            for _ in 0..<300 {
                let playlist = try? await probe.get("/live/bench/video.m3u8")
                let segments = playlist.map {
                    String(decoding: $0.body, as: UTF8.self).components(separatedBy: "#EXTINF").count - 1
                }
                if (segments ?? 0) >= 3 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            await probe.close()
            let viewer = ClassicHLSViewer(playlistURL: "\(base)/live/bench/index.m3u8", logger: Self.logger)
            let report = try await viewer.run(until: .now + .seconds(8))
            #expect(report.frames.count > 60)
            #expect(report.errors.isEmpty, "\(report.errors)")
            let player = report.playerLatencies.sorted()
            let playerP50 = try #require(player.isEmpty ? nil : player[player.count / 2])
            print("classic HLS 1 s segments: player p50 \(playerP50)")
            // Three segments (1 s: this publisher's GOP) behind the edge, plus the one being written: above LL-HLS.
            #expect(playerP50 > .seconds(2.5) && playerP50 < .seconds(8))
        }
    }
}
