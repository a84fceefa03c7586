import Foundation
import Logging
import MediaCore
import NIOCore
import NIOPosix
import RTMPIngest
import StreamHub
import Testing

/// Real-peer tests: the `ffmpeg` CLI publishes to a live RTMPIngestService on loopback.
@Suite(.serialized)
struct FFmpegPublishTests {
    /// What a subscriber saw of one publication.
    struct Received {
        var descriptions: [StreamDescription] = []
        var video: [MediaFrame] = []
        var audio: [MediaFrame] = []
        var ended = false
    }

    @Test func ffmpegPublishYieldsH264AndAACFrames() async throws {
        let (received, status) = try await publishWithFFmpeg(key: "testkey", extraArguments: [])
        #expect(status == 0)
        let description = try #require(received.descriptions.last)
        let video = try #require(description.video)
        #expect(video.codec == .h264)
        #expect(video.width == 640 && video.height == 360)
        let audio = try #require(description.audio)
        #expect(audio.codec == .aac)
        #expect(audio.sampleRate == 48_000)
        #expect(abs(received.video.count - 90) <= 5, "video frames: \(received.video.count)")
        #expect(received.video.first?.isKeyframe == true)
        #expect(received.audio.count > 100)
        #expect(zip(received.video, received.video.dropFirst()).allSatisfy { $0.dts < $1.dts })
        #expect(zip(received.audio, received.audio.dropFirst()).allSatisfy { $0.dts < $1.dts })
        #expect(received.video.allSatisfy { $0.stamps.firstByte != nil && $0.stamps.ingested != nil })
        #expect(received.video.allSatisfy { $0.stamps.firstByte! <= $0.stamps.ingested! })
        #expect(received.ended)
    }

    @Test func ffmpegPublishWithBFramesCarriesCompositionOffsets() async throws {
        let (received, status) = try await publishWithFFmpeg(key: "bframes", extraArguments: ["-bf", "2"])
        #expect(status == 0)
        #expect(received.video.contains { $0.compositionOffset.value != 0 })
        #expect(received.video.allSatisfy { $0.compositionOffset.value >= 0 })
    }

    @Test func garbageClosesOnlyThatConnection() async throws {
        let hub = StreamHub()
        try await withRunningService(hub: hub) { port in
            async let publish = publish(hub: hub, port: port, key: "survivor", extraArguments: [])
            // Garbage before and after a valid handshake: both connections must be closed by the server.
            let badVersion = try await connectAndSend(port: port, bytes: Array("GET / HTTP/1.1\r\n\r\n".utf8))
            var afterHandshake: [UInt8] = [3] + [UInt8](repeating: 7, count: 1536 * 2)
            afterHandshake += [0x45, 1, 2, 3, 4, 5, 6, 7, 8]  // fmt 1 on a fresh chunk stream.
            let badChunk = try await connectAndSend(port: port, bytes: afterHandshake)
            #expect(badVersion)
            #expect(badChunk)
            let (received, status) = try await publish
            #expect(status == 0)
            #expect(abs(received.video.count - 90) <= 5)
        }
    }

    // MARK: - Helpers

    private func publishWithFFmpeg(key: String, extraArguments: [String]) async throws -> (Received, Int32) {
        let hub = StreamHub()
        var result: (Received, Int32)?
        try await withRunningService(hub: hub) { port in
            result = try await publish(hub: hub, port: port, key: key, extraArguments: extraArguments)
        }
        return try #require(result)
    }

    private func withRunningService(hub: StreamHub, _ body: (Int) async throws -> Void) async throws {
        var logger = Logger(label: "rtmp-test")
        logger.logLevel = .info
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let service = RTMPIngestService(
            host: "127.0.0.1",
            port: 0,
            hub: hub,
            logger: logger,
            onBound: { portSink.yield($0) }
        )
        let task = Task { try await service.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        #expect(service.boundPort == port)
        do {
            try await body(port)
        } catch {
            task.cancel()
            throw error
        }
        task.cancel()
        try await task.value
    }

    private func publish(
        hub: StreamHub,
        port: Int,
        key: String,
        extraArguments: [String]
    ) async throws -> (
        Received, Int32
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments =
            [
                "-hide_banner", "-loglevel", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30",
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "3", "-c:v", "libx264",
                "-preset", "veryfast", "-tune", "zerolatency", "-g", "30",
            ] + extraArguments + ["-c:a", "aac", "-f", "flv", "rtmp://127.0.0.1:\(port)/live/\(key)"]
        process.standardInput = FileHandle.nullDevice
        let (exits, exitSink) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exitSink.yield($0.terminationStatus) }
        try process.run()
        let streamKey = try #require(StreamKey(key))
        var reader: StreamReader?
        for _ in 0..<1000 where reader == nil {
            reader = hub.subscribe(key: streamKey, name: "test")
            if reader == nil { try await Task.sleep(for: .milliseconds(5)) }
        }
        let subscription = try #require(reader)
        var received = Received()
        while let event = await subscription.next() {
            switch event {
            case .description(let d): received.descriptions.append(d)
            case .frame(let f) where f.kind == .video: received.video.append(f)
            case .frame(let f): received.audio.append(f)
            case .ended: received.ended = true
            }
        }
        var exitIterator = exits.makeAsyncIterator()
        let status = await exitIterator.next() ?? -1
        return (received, status)
    }

    /// Connects, sends `bytes`, and reports whether the server closed the connection within 3 s.
    private func connectAndSend(port: Int, bytes: [UInt8]) async throws -> Bool {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port).get()
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
        let closed = channel.eventLoop.makePromise(of: Bool.self)
        channel.closeFuture.whenComplete { _ in closed.succeed(true) }
        channel.eventLoop.scheduleTask(in: .seconds(3)) { closed.succeed(false) }
        let result = try await closed.futureResult.get()
        try? await channel.close()
        return result
    }
}
