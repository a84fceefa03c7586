import CodecFormats
import Foundation
import HLSPlaylist
import MediaCore
import TestSupport
import Testing

@testable import LLHLSPackager

/// WebRTC video: no frame rate in the description and capture timestamps that jitter around the frame period.
@Suite struct JitteredPartTests {
    /// `seconds` of video at `fps` whose 90 kHz timestamps wander ±`jitterMs` (seeded), keyframe every `gop` frames.
    static func jittered(seconds: Double, fps: Double, jitterMs: Double, gop: Int, seed: UInt64) -> [MediaFrame] {
        var rng = SeededRandom(seed: seed)
        return (0..<Int(seconds * fps)).map { n in
            let t = Double(n) / fps + (n == 0 ? 0 : Double.random(in: -jitterMs...jitterMs, using: &rng) / 1000)
            return Fixtures.videoFrame(
                dts: MediaTime(value: Int64(t * 90_000), timescale: 90_000),
                keyframe: n % gop == 0
            )
        }
    }

    @Test(arguments: [(20.0, 4.0), (30.0, 3.0), (25.0, 3.0), (15.0, 5.0)])
    func partsStayAboveEightyFivePercentOfTheTarget(fps: Double, jitterMs: Double) throws {
        let avcC = AVCDecoderConfigurationRecord(sps: Fixtures.sps, pps: Fixtures.pps).serialize()
        var v = try VideoParameters(avcDecoderConfiguration: avcC)
        v.frameRate = nil  // the fixture's SPS has VUI timing; a browser's has none
        let d = StreamDescription(video: v, audio: nil)
        var s = Fixtures.state(d)
        s.feed(Self.jittered(seconds: 12, fps: fps, jitterMs: jitterMs, gop: Int(fps), seed: 7))
        let r = s.rendition(.video)
        let pt = 0.22
        #expect(s.mediaPlaylist(.video)!.render().contains("#EXT-X-PART-INF:PART-TARGET=0.22000\n"))
        var short: [String] = []
        for seg in r.segments where seg.complete {
            for (i, p) in seg.parts.enumerated() where i < seg.parts.count - 1 {
                let seconds = Double(p.duration) / 90_000
                #expect(seconds <= pt + 1e-9)
                // P3: only a parent's last part or an INDEPENDENT one may be short.
                if seconds < 0.85 * pt && !p.independent { short.append("\(seg.msn).\(i)=\(seconds)") }
            }
        }
        #expect(short.isEmpty, "short parts at \(fps) fps ±\(jitterMs) ms: \(short)")
        // No VUI timing in the SPS: FRAME-RATE comes from the frames published (Apple requires it for video variants).
        let multivariant = try #require(s.multivariantPlaylist()).render()
        #expect(multivariant.contains(",FRAME-RATE=\(String(format: "%.3f", fps))"), "\(multivariant)")
    }
}

/// FRAME-RATE measured from one second of frames snaps to the rate the encoder meant.
@Suite struct FrameRateSnapTests {
    @Test(arguments: [
        (14.9, 15.0), (30.3, 30.0), (29.8, 29.97), (24.9, 25.0), (59.2, 59.94), (27.0, 27.0), (17.44, 17.4),
    ])
    func measuredRatesSnapToCommonOnes(measured: Double, expected: Double) {
        #expect(PublishedRendition.snappedFrameRate(measured) == expected)
    }
}
