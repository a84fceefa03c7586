import CodecFormats
import MediaCore
import Testing

/// Which sources fast start bridges: up to 1280x720 at 30 fps (`EarlyFirstSegment.bridgedPixelRateLimit`).
@Suite struct EarlyFirstSegmentTests {
    static func source(_ width: Int, _ height: Int, _ fps: Double?) -> VideoParameters {
        VideoParameters(
            codec: .h264,
            decoderConfiguration: [],
            width: width,
            height: height,
            codecString: "avc1.64001f",
            frameRate: fps
        )
    }

    @Test(arguments: [
        (854, 480, 30 as Double?, true),
        (1280, 720, 30, true),
        (1280, 720, 29.97, true),
        (1280, 720, nil, true),  // rate unknown: taken as 30 fps
        (1280, 720, 60, false),
        (1920, 1080, 30, false),
        (1920, 1080, nil, false),
    ])
    func bridgesUpTo720p30(width: Int, height: Int, fps: Double?, bridges: Bool) {
        let asked = EarlyFirstSegment(length: .milliseconds(400), bridgesShortGOPs: true)
        let applied = asked.applying(to: Self.source(width, height, fps))
        #expect(applied.bridgesShortGOPs == bridges)
        #expect(applied.length == asked.length && applied.evenWithShortGOPs == asked.evenWithShortGOPs)
    }

    @Test func neverBridgesWhereNotAsked() {
        let asked = EarlyFirstSegment(length: .milliseconds(400))
        #expect(!asked.applying(to: Self.source(640, 360, 30)).bridgesShortGOPs)
        #expect(asked.applying(to: nil) == asked)
    }
}
