import Foundation
import Logging
import MediaCore
import StreamHub
import Synchronization
import Telemetry
import TestSupport
import Testing

@testable import SRTIngest

/// The service against a real caller (the Debian ffmpeg CLI over libsrt): frames reach the hub, stats reach the
/// telemetry, and cancelling the service ends the session, its publication and every SRT thread.
@Suite(.serialized) struct SRTIngestServiceTests {
    @Test func ffmpegPublishesIntoTheHubAndCancellingEndsTheSession() async throws {
        let hub = StreamHub()
        let telemetry = GatewayTelemetry()
        var configuration = SRTIngestConfiguration()
        configuration.port = 0
        let bound = Mutex<Int?>(nil)
        let service = SRTIngestService(
            host: "127.0.0.1",
            configuration: configuration,
            hub: hub,
            logger: Logger(label: "srt-test"),
            telemetry: telemetry,
            onBound: { port in bound.withLock { $0 = port } }
        )
        let task = Task { try await service.run() }
        var port: Int?
        for _ in 0..<100 where port == nil {
            try await Task.sleep(for: .milliseconds(50))
            port = bound.withLock { $0 }
        }
        let srtPort = try #require(port)
        let ffmpeg = try ExternalTool.start(
            "ffmpeg",
            [
                "-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-f", "lavfi", "-i",
                "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i", "sine=sample_rate=48000", "-t", "20",
                "-c:v", "libx264", "-preset", "veryfast", "-bf", "2", "-g", "30", "-c:a", "aac", "-f", "mpegts",
                "srt://127.0.0.1:\(srtPort)?streamid=#!::r=live/unit,m=publish",
            ]
        )
        defer { if ffmpeg.isRunning { ffmpeg.terminate() } }
        let key = try #require(StreamKey("unit"))
        var publication: Publication?
        for _ in 0..<200 {
            try await Task.sleep(for: .milliseconds(50))
            publication = hub.publication(for: key)
            if let p = publication, p.framesIn > 60 { break }
        }
        let p = try #require(publication)
        #expect(p.framesIn > 60)
        #expect(p.description?.video?.width == 320)
        #expect(p.description?.audio?.sampleRate == 48_000)
        #expect(p.origin.hasPrefix("srt://127.0.0.1:"))
        try await Task.sleep(for: .milliseconds(1200))
        #expect((telemetry.srt(stream: key)?.packetsReceived ?? 0) > 0)

        task.cancel()
        _ = try await task.value
        // run() returned: every SRT thread ended, the session's publication with it.
        #expect(p.isEnded)
        #expect(hub.publication(for: key) == nil)
        // And libsrt is left as found: the next start-up starts it afresh, so no GC thread outlives the service
        // (one left running crashes at process exit in libsrt's static destructor).
        #expect(SRTSocket.startup())
        SRTSocket.cleanup()
    }

    @Test func libsrtsRejectionLineNamesTheSocketAndThePassphrase() {
        let bad = SRTLibraryLog.rejection(
            in: "@784331315:newConnection: connection rejected due to: INTERNAL REJECTION - ERROR:BADSECRET"
        )
        #expect(bad?.0 == 784_331_315)
        #expect(bad?.1.hasPrefix("wrong passphrase") == true)
        let none = SRTLibraryLog.rejection(
            in: "@17:newConnection: connection rejected due to: INTERNAL REJECTION - ERROR:UNSECURE"
        )
        #expect(none?.1.hasPrefix("no passphrase") == true)
        #expect(SRTLibraryLog.rejection(in: "CRcvBufferNew.readMessage(): nothing to read.") == nil)
    }
}
