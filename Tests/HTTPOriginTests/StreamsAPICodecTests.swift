import CodecFormats
import Foundation
import HTTPOrigin
import Hummingbird
import HummingbirdTesting
import Logging
import MediaCore
import NIOCore
import StreamHub
import Testing

@testable import LLHLSPackager

/// `/api/streams` names each stream's source codec (issue 20): the format and the CODECS string ingest announced.
@Suite("Streams API source codec")
struct StreamsAPICodecTests {
    /// A real x265 Main 10 1280x720 hvcC (FFmpeg 9 E-RTMP SequenceStart; ffprobe: Main 10, level 93).
    static let hvcC = hex(
        "0102200000009000000000005df000fcfdfafa00000f03200001001840010c01ffff02200000030090000003000003005d95980921"
            + "0001002b42010102200000030090000003000003005da00280802d1365959a4932bc05a020000003002000000303c1220001000744"
            + "01c172b46240"
    )

    /// The decoded `source` object of stream `key` in a GET of `/api/streams` through the router.
    static func source(of key: String, router: Router<OriginRequestContext>) async throws -> SourceCodecs? {
        let app = Application(router: router)
        return try await app.test(.router) { client in
            let r = try await client.execute(uri: "/api/streams", method: .get)
            #expect(r.status == .ok)
            let streams = try JSONDecoder().decode([StreamSummary].self, from: Data(r.body.readableBytesView))
            return try #require(streams.first { $0.key == key }).source
        }
    }

    @Test func hevcSourceIsNamedWithItsCodecsString() async throws {
        let hub = StreamHub()
        let packager = LLHLSPackager(hub: hub, logger: Logger(label: "t"))
        let run = Task { await packager.run() }
        let key = try #require(StreamKey("hevc"))
        let publication = try hub.publish(key: key, origin: "test")
        publication.update(
            description: StreamDescription(
                video: try VideoParameters(hevcDecoderConfiguration: Self.hvcC, frameRate: 30),
                audio: try AudioParameters(audioSpecificConfig: [0x11, 0x90])
            )
        )
        // 30 s, not the fixture's 5: with the whole suite in parallel on 2 cores, tests that block the cooperative
        // pool (ffmpeg runs) can hold the packager's tasks for seconds.
        let deadline = ContinuousClock.now + .seconds(30)
        while packager.stream(for: key)?.summary().source == nil {
            #expect(ContinuousClock.now < deadline, "the packager never described the HEVC stream")
            if ContinuousClock.now >= deadline { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        let source = try await Self.source(of: "hevc", router: OriginRoutes.router(packager: packager))
        #expect(
            source
                == SourceCodecs(videoFormat: "hevc", video: "hvc1.2.4.L93.90", audioFormat: "aac", audio: "mp4a.40.2")
        )
        publication.end()
        run.cancel()
        await run.value
    }

    @Test func h264SourceIsNamedToo() async throws {
        try await OriginRoutesTests.withOrigin { fixture, _ in
            let source = try await Self.source(of: "demo", router: OriginRoutes.router(packager: fixture.packager))
            #expect(source?.videoFormat == "h264")
            #expect(source?.video?.hasPrefix("avc1.") == true)
            #expect(source?.audioFormat == "aac" && source?.audio == "mp4a.40.2")
        }
    }

    @Test func noTrackNoSource() {
        #expect(SourceCodecs(nil) == nil)
        #expect(SourceCodecs(StreamDescription()) == nil)
    }
}

/// Bytes from a hex string.
private func hex(_ s: String) -> [UInt8] {
    var out: [UInt8] = []
    var i = s.startIndex
    while i < s.endIndex {
        let j = s.index(i, offsetBy: 2)
        out.append(UInt8(s[i..<j], radix: 16)!)
        i = j
    }
    return out
}
