import CodecFormats
import FFmpegBridge
import Foundation
import MediaCore
import MediaTestSupport
import TestSupport
import Testing
import Transcoder

/// HEVC and AV1 sources reach the H.264 rungs with the bench's capture clock: libavcodec's HEVC decoder exports the
/// prefix SEI as UDU side data as H.264's does; for AV1 (libdav1d exports no T.35 of ours) the ladder writes
/// `stamps.capture`, which ingest read from the metadata OBU, into every rung picture, and x264 makes the same SEI.
@Suite(.serialized) struct LadderCaptureClockTests {
    static let encoders: [String: [String]] = [
        "hevc": [
            "-c:v", "libx265", "-preset", "ultrafast", "-tag:v", "hvc1", "-x265-params", "keyint=30:log-level=error",
        ],
        "av1": ["-c:v", "libsvtav1", "-preset", "12", "-g", "30"],
    ]

    @Test(arguments: ["hevc", "av1"])
    func everyRungFrameCarriesTheSourceCaptureClock(_ codec: String) async throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("src.mp4").path
        let made = try ExternalTool.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-t",
                "2",
            ]
                + (Self.encoders[codec] ?? []) + ["-pix_fmt", "yuv420p", path]
        )
        #expect(made.status == 0)
        let (description, raw) = try TestMedia.frames(of: path)
        #expect(description.video?.codec.rawValue == codec)
        // As RTMP ingest hands them on: the clock in the bytes (our publisher wrote it) and in stamps.capture.
        var index: Int64 = 0
        let frames = try raw.map { f in
            guard f.kind == .video, let video = description.video else { return f }
            index += 1
            let wall = WallTime(millisecondsSince1970: 1_763_000_000_000 + index * 33)
            var out = f
            out.data = try CaptureStamp.inserting(wall, into: f.data, codec: video.codec)
            out.stamps = HopStamps(capture: CaptureStamp.read(out.data, codec: video.codec))
            return out
        }
        let source = frames.filter { $0.kind == .video }
        #expect(source.allSatisfy { $0.stamps.capture != nil })
        let captureByPTS = Dictionary(uniqueKeysWithValues: source.map { ($0.pts, $0.stamps.capture) })
        let result = try await LadderHarness.run(segments: [(description, frames)], expectedRungs: ["480p", "360p"])
        for (name, output) in result.rungs {
            #expect(output.frames.count == source.count, "\(name)")
            for f in output.frames {
                // One clock per rung frame, the source's, in the SEI the model viewer reads.
                #expect(CaptureTimeSEI.captureTime(inAVCC: f.data) == captureByPTS[f.pts] ?? nil, "\(name) at \(f.pts)")
                let seis = try H264.nalUnits(avcc: f.data).filter { CaptureTimeSEI.captureTime(inNALUnit: $0) != nil }
                #expect(seis.count == 1, "\(name) at \(f.pts)")
            }
        }
    }
}
