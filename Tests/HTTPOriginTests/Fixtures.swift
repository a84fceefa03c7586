import CodecFormats
import Logging
import MediaCore
import StreamHub
import Synchronization

@testable import LLHLSPackager

/// A hub, a packager following it and a publisher feeding synthetic A/V, for in-process origin tests.
struct OriginFixture: Sendable {
    static let key = StreamKey("demo")!

    let hub = StreamHub()
    let packager: LLHLSPackager
    let publication: Publication
    let run: Task<Void, Never>

    /// Publishes `seconds` of 30 fps video (2 s GOPs) and 48 kHz AAC and waits until it is packaged.
    init(seconds: Double = 7) async throws {
        packager = LLHLSPackager(hub: hub, logger: Logger(label: "origin-test"))
        let packager = packager
        run = Task { await packager.run() }
        publication = try hub.publish(key: Self.key, origin: "test")
        let avcC = AVCDecoderConfigurationRecord(sps: Self.sps, pps: Self.pps).serialize()
        publication.update(
            description: StreamDescription(
                video: try VideoParameters(avcDecoderConfiguration: avcC, frameRate: 30),
                audio: try AudioParameters(audioSpecificConfig: [0x11, 0x90])
            )
        )
        // The packager subscribes when the hub announces the key; frames sent before that reach no reader.
        try await Self.eventually { packager.stream(for: Self.key) != nil }
        let frames = Self.frames(seconds: seconds)
        for f in frames { publication.send(f) }
        // Every 2 s GOP before the last one becomes a complete segment in both renditions.
        let complete = Int(seconds / 2)
        try await Self.eventually {
            packager.stream(for: Self.key)?.state.withLock { s in
                [MediaKind.video, .audio].allSatisfy {
                    (s.pipeline($0)?.rendition.segments.filter(\.complete).count ?? 0) >= complete
                }
            } ?? false
        }
    }

    /// Ends the publisher and the packager.
    func stop() async {
        publication.end()
        run.cancel()
        await run.value
    }

    /// The stream's epoch, read from the MAP URI of the video playlist.
    func epoch() async throws -> String {
        let stream = try requireStream(packager.stream(for: Self.key))
        let text = String(decoding: await stream.mediaPlaylist(.video, request: PlaylistRequest()).body, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("#EXT-X-MAP:URI=\"") }) else {
            throw FixtureError.noMap(text)
        }
        return String(line.dropFirst("#EXT-X-MAP:URI=\"".count).split(separator: "/")[0])
    }

    /// Polls `condition` every 10 ms for up to 5 s.
    static func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw FixtureError.timedOut }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// 30 fps video with a keyframe every 60 frames and 48 kHz AAC, interleaved in decode order.
    static func frames(seconds: Double) -> [MediaFrame] {
        var out: [(Double, MediaFrame)] = []
        for n in 0..<Int(seconds * 30) {
            let key = n % 60 == 0
            let nal: [UInt8] = key ? [0x65, 0x88, 0x84, 0x00] : [0x41, 0x9A, 0x02, 0x00]
            out.append(
                (
                    Double(n) / 30,
                    MediaFrame(
                        kind: .video,
                        dts: MediaTime(value: Int64(n) * 3_000, timescale: 90_000),
                        isKeyframe: key,
                        data: [0, 0, 0, 4] + nal
                    )
                )
            )
        }
        for n in 0..<Int(seconds * 48_000 / 1024) {
            out.append(
                (
                    Double(n) * 1024 / 48_000 + 0.000_001,
                    MediaFrame(
                        kind: .audio,
                        dts: MediaTime(value: Int64(n) * 1024, timescale: 48_000),
                        isKeyframe: true,
                        data: [0x21, 0x10, 0x04]
                    )
                )
            )
        }
        return out.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// SPS and PPS of a 640x360 x264 stream (`ffmpeg -f lavfi -i testsrc2=size=640x360:rate=30 -c:v libx264`).
    static let sps: [UInt8] = [
        0x67, 0x64, 0x00, 0x1E, 0xAC, 0xD9, 0x40, 0xA0, 0x2F, 0xF9, 0x70, 0x11, 0x00, 0x00, 0x03, 0x00, 0x01, 0x00,
        0x00, 0x03, 0x00, 0x3C, 0x0F, 0x16, 0x2D, 0x96,
    ]
    static let pps: [UInt8] = [0x68, 0xEB, 0xE3, 0xCB, 0x22, 0xC0]
}

/// Why the fixture could not set up.
enum FixtureError: Error {
    case timedOut
    case noMap(String)
    case noStream
}

/// Unwraps the packaged stream or throws.
func requireStream(_ s: LLHLSStream?) throws -> LLHLSStream {
    guard let s else { throw FixtureError.noStream }
    return s
}
