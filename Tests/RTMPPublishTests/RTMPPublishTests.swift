import CodecFormats
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

    /// Our E-RTMP writer against FFmpeg 9's E-RTMP reader: an HEVC or AV1 MP4 (Debian's libx265 / libsvtav1) published
    /// with the capture clock, recorded by FFmpeg 9 into MP4, read back by Debian's ffprobe (the ladder's libavcodec).
    @Test(.enabled(if: EnhancedRTMPFFmpeg.path != nil), arguments: ["hevc", "av1"])
    func enhancedFileArrivesAtFFmpeg9WithItsCaptureClock(_ codec: String) async throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("in.mp4").path
        let encoder =
            codec == "hevc"
            ? [
                "-c:v", "libx265", "-preset", "ultrafast", "-tag:v", "hvc1", "-x265-params",
                "keyint=30:log-level=error",
            ]
            : ["-c:v", "libsvtav1", "-preset", "12", "-g", "30"]
        let made = try ExternalTool.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t",
                "2",
            ]
                + encoder + ["-pix_fmt", "yuv420p", source]
        )
        #expect(made.status == 0)
        let ffmpeg9 = try #require(EnhancedRTMPFFmpeg.path)
        let server = try FFmpegRTMPRecorder(in: dir, file: "out.mp4", tool: ffmpeg9, format: "mp4")
        defer { server.stop() }
        let publisher = try await connect(server.url)
        let report = try await publish(source: try MediaFileSource(path: source), with: publisher)
        publisher.close()
        #expect(report.videoFrames == 60)
        #expect(try await server.waitForExit())
        #expect(try ToolRunner.streams(server.output) == ["\(codec),320,240"])
        #expect(try ToolRunner.packetCounts(server.output)["video"] == 60)
        // Every frame still carries our clock, as the bench's ingest and ladder read it.
        let (_, packets) = try ExternalTool.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v", "-show_entries", "packet=data", "-show_data", "-of", "json",
                server.output,
            ]
        )
        let uuid = CaptureTimeSEI.uuid.map { String(format: "%02x", $0) }.joined()
        let json = try JSONSerialization.jsonObject(with: Data(packets.utf8)) as? [String: Any]
        let entries: [[String: Any]] = json?["packets"] as? [[String: Any]] ?? []
        let dumps: [String] = entries.compactMap { (entry: [String: Any]) -> String? in entry["data"] as? String }
        #expect(dumps.count == 60)
        #expect(dumps.allSatisfy { hexDump($0).contains(uuid) })
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

/// The hex digits of an ffprobe `-show_data` dump, lower-case and joined: each line is an 8-digit offset and ": ",
/// then 40 columns of hex in groups of four, then the bytes as text.
private func hexDump(_ dump: String) -> String {
    dump.split(separator: "\n").map { line in
        String(line.dropFirst(10).prefix(40).filter { $0 != " " })
    }.joined().lowercased()
}
