import FFmpegBridge
import Foundation
import MediaCore
import RTMPPublish
import RTMPWire
import TestSupport
import Testing

/// Publishing to a real RTMP peer: the ffmpeg CLI listening as a server and recording what it receives.
@Suite(.serialized) struct RTMPPublishTests {
    /// Connects, retrying while the listener starts.
    private func connect(_ url: String) async throws -> RTMPPublisher {
        var lastError: RTMPPublishError?
        for _ in 0..<50 {
            do {
                return try RTMPPublisher(url: url)
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw try #require(lastError)
    }

    @Test func twoSecondsOfTestPatternArriveAtFFmpegAsH264AndAAC() async throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try FFmpegRTMPRecorder(in: dir)
        defer { server.stop() }
        let (url, out) = (server.url, server.output)

        let publisher = try await connect(url)
        let source = try TestPatternSource(duration: .seconds(2))
        let started = ContinuousClock.now
        let report = try await publish(source: source, with: publisher)
        let elapsed = ContinuousClock.now - started
        publisher.close()
        #expect(report.videoFrames == 60)
        #expect(report.audioFrames >= 90)
        // Paced like -re: two seconds of media take about two seconds.
        #expect(elapsed >= .milliseconds(1_800))

        #expect(try await server.waitForExit())
        let streams = try ToolRunner.streams(out)
        #expect(streams.contains("h264,1280,720"))
        #expect(streams.contains("aac"))
        let counts = try ToolRunner.packetCounts(out)
        #expect((58...60).contains(counts["video"] ?? 0))
    }

    @Test func connectingToAClosedPortFails() throws {
        let url = "rtmp://127.0.0.1:\(ExternalTool.freePort())/live/x"
        #expect(throws: RTMPPublishError.connectFailed(url: url)) {
            _ = try RTMPPublisher(url: url, timeout: .seconds(2))
        }
    }

    @Test func writingAfterCloseFails() async throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try FFmpegRTMPRecorder(in: dir, key: "y", file: "o.flv")
        defer { server.stop() }
        let publisher = try await connect(server.url)
        publisher.close()
        #expect(throws: RTMPPublishError.closed) {
            try publisher.write(FLVTag(kind: .audio, timestamp: 0, body: [0xAF, 1, 0]))
        }
    }
}
