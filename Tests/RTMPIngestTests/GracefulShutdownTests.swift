import Foundation
import Logging
import MediaCore
import RTMPIngest
import ServiceLifecycleTestKit
import StreamHub
import Testing

/// Shutdown closes the listener and every session, ending live publications.
struct GracefulShutdownTests {
    @Test func gracefulShutdownEndsLivePublicationsAndReturns() async throws {
        let hub = StreamHub()
        try await testGracefulShutdown { trigger in
            let (ports, portSink) = AsyncStream<Int>.makeStream()
            let service = RTMPIngestService(
                host: "127.0.0.1",
                port: 0,
                hub: hub,
                logger: Logger(label: "rtmp-shutdown-test"),
                onBound: { portSink.yield($0) }
            )
            let task = Task { try await service.run() }
            var portIterator = ports.makeAsyncIterator()
            let port = try #require(await portIterator.next())

            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
            process.arguments = [
                "-hide_banner", "-loglevel", "quiet", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30",
                "-t", "20", "-c:v", "libx264", "-preset", "veryfast", "-f", "flv",
                "rtmp://127.0.0.1:\(port)/live/shutdown",
            ]
            process.standardInput = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { process.terminate() } }

            let key = try #require(StreamKey("shutdown"))
            var reader: StreamReader?
            for _ in 0..<1000 where reader == nil {
                reader = hub.subscribe(key: key, name: "test")
                if reader == nil { try await Task.sleep(for: .milliseconds(5)) }
            }
            let subscription = try #require(reader)
            var sawFrame = false
            while !sawFrame, let event = await subscription.next() {
                if case .frame = event { sawFrame = true }
            }
            #expect(sawFrame)

            let started = ContinuousClock.now
            trigger.triggerGracefulShutdown()
            var ended = false
            while let event = await subscription.next() {
                if case .ended = event { ended = true }
            }
            try await task.value
            #expect(ended)
            #expect(ContinuousClock.now - started < .seconds(5))
            #expect(hub.liveKeys.isEmpty)
        }
    }
}
