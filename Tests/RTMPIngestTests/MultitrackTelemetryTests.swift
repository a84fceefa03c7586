import Foundation
import Logging
import MediaCore
import RTMPIngest
import StreamHub
import Telemetry
import TestSupport
import Testing

/// E-RTMP multitrack (issue 20): the tracks beyond the served one reach telemetry (so `/api/streams` and `sluice stats`)
/// with their id and codec, from a real FFmpeg 9 publishing two H.264 tracks to a live RTMPIngestService.
@Suite(.serialized)
struct MultitrackTelemetryTests {
    @Test(.enabled(if: EnhancedRTMPFFmpeg.path != nil))
    func secondTrackOfAnFFmpeg9PublishIsListedWithItsCodec() async throws {
        let hub = StreamHub()
        let telemetry = GatewayTelemetry()
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let service = RTMPIngestService(
            host: "127.0.0.1",
            port: 0,
            hub: hub,
            logger: Logger(label: "multitrack-test"),
            onBound: { portSink.yield($0) },
            telemetry: telemetry
        )
        let task = Task { try await service.run() }
        defer { task.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let key = try #require(StreamKey("two"))
        let ffmpeg = try ExternalTool.start(
            try #require(EnhancedRTMPFFmpeg.path),
            [
                "-hide_banner", "-loglevel", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25",
                "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25", "-map", "0:v", "-map", "1:v", "-t", "4",
                "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-bf", "0", "-pix_fmt", "yuv420p",
                "-f", "flv", "rtmp://127.0.0.1:\(port)/live/two",
            ]
        )
        defer { if ffmpeg.isRunning { ffmpeg.terminate() } }
        let deadline = ContinuousClock.now + .seconds(20)
        var tracks: [IngestTrack] = []
        while tracks.isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            tracks = telemetry.snapshot(stream: key)?.otherVideoTracks ?? []
        }
        #expect(tracks == [IngestTrack(trackID: 1, codec: "avc1")])
        ffmpeg.waitUntilExit()
        #expect(ffmpeg.terminationStatus == 0)
        // Still listed after the publisher left (the ended stream's summary names what it sent).
        #expect(telemetry.snapshot(stream: key)?.otherVideoTracks == [IngestTrack(trackID: 1, codec: "avc1")])
    }

    @Test func recordingReplacesTheListSortedByTrack() {
        let telemetry = GatewayTelemetry()
        let key = StreamKey("cam")!
        telemetry.recordOtherVideoTracks(
            stream: key,
            [IngestTrack(trackID: 2, codec: "av01"), IngestTrack(trackID: 1, codec: "hvc1")]
        )
        #expect(telemetry.snapshot(stream: key)?.otherVideoTracks.map(\.trackID) == [1, 2])
        telemetry.recordOtherVideoTracks(stream: key, [])
        #expect(telemetry.snapshot(stream: key)?.otherVideoTracks == [])
    }
}
