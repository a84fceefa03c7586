import CodecFormats
import Foundation
import MediaCore
import TestSupport
import Testing

@testable import FFmpegBridge

/// Demuxing files the ffmpeg CLI wrote, checked against ffprobe's own packet counts.
@Suite struct MediaFileSourceTests {
    /// Writes a 2 s 640x360 testsrc2 + sine file in `container` (flv or mp4) with the given video codec.
    private func makeFile(
        _ container: String,
        videoCodec: String = "libx264",
        x264Params: String? = nil
    ) throws
        -> String
    {
        let dir = try ExternalTool.temporaryDirectory()
        let path = dir.appendingPathComponent("in.\(container)").path
        let (status, _) = try ExternalTool.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30",
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "2", "-c:v", videoCodec, "-g", "30",
            ] + (x264Params.map { ["-x264-params", $0] } ?? []) + ["-c:a", "aac", "-ac", "2", path]
        )
        try #require(status == 0)
        return path
    }

    private func drain(_ source: MediaFileSource) throws -> [MediaFrame] {
        var frames: [MediaFrame] = []
        while let f = try source.nextFrame() { frames.append(f) }
        return frames
    }

    @Test(arguments: ["flv", "mp4"])
    func frameCountsMatchFFprobe(container: String) throws {
        let path = try makeFile(container)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let expected = try ToolRunner.packetCounts(path)
        let source = try MediaFileSource(path: path)
        let frames = try drain(source)
        #expect(frames.filter { $0.kind == .video }.count == expected["video"])
        #expect(frames.filter { $0.kind == .audio }.count == expected["audio"])
        #expect(source.streamDescription.video?.width == 640)
        #expect(source.streamDescription.audio?.sampleRate == 48_000)
    }

    /// Four slices per picture (x264 `slices=4`, as sliced-threads encoders write): many NAL units are 256–511 bytes,
    /// whose 4-byte length prefix 00 00 01 xx looks like a start code; every frame must still come out as the file's
    /// own NAL units (same count, same bytes), not re-split at false start codes.
    @Test(arguments: ["flv", "mp4"])
    func slicedPicturesKeepTheirNALUnits(container: String) throws {
        let path = try makeFile(container, x264Params: "slices=4")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let video = try drain(try MediaFileSource(path: path)).filter { $0.kind == .video }
        #expect(video.count == (try ToolRunner.packetCounts(path))["video"])
        let sliceCounts = try video.map { f in
            try H264.nalUnits(avcc: f.data).filter { [1, 5].contains(($0.first ?? 0) & 0x1F) }.count
        }
        #expect(sliceCounts.allSatisfy { $0 == 4 }, "slices per picture: \(Set(sliceCounts))")
        // The false start code the old per-packet sniffing split on: a 4-byte length of 256–511.
        #expect(video.contains { $0.data.starts(with: [0, 0, 1]) })
    }

    @Test func lengthPrefixedPacketsThatLookLikeStartCodes() {
        let nal300 = [UInt8](repeating: 0x41, count: 300)
        let avcc = [0, 0, 1, 44] + nal300
        #expect(H264Packaging.isAnnexB(avcc))
        #expect(H264Packaging.tilesAsLengthPrefixed(avcc, lengthSize: 4))
        #expect(!H264Packaging.packetIsAnnexB(avcc, lengthSize: 4))
        let annexB: [UInt8] = [0, 0, 0, 1, 0x65, 1, 2, 3, 0, 0, 1, 0x41, 9]
        #expect(H264Packaging.packetIsAnnexB(annexB, lengthSize: 4))
        #expect(!H264Packaging.tilesAsLengthPrefixed([], lengthSize: 4))
        #expect(!H264Packaging.tilesAsLengthPrefixed([0, 0, 0, 5, 1], lengthSize: 4))
        #expect(!H264Packaging.tilesAsLengthPrefixed([0, 0, 0, 0], lengthSize: 4))
        #expect(H264Packaging.tilesAsLengthPrefixed([0, 2, 7, 7, 0, 1, 9], lengthSize: 2))
    }

    @Test(arguments: ["flv", "mp4"])
    func framesAreDecodeOrderedAVCCWithKeyframesFirst(container: String) throws {
        let path = try makeFile(container)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let frames = try drain(try MediaFileSource(path: path))
        let video = frames.filter { $0.kind == .video }
        #expect(video.first?.isKeyframe == true)
        #expect(video.filter(\.isKeyframe).count == 2)
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.dts <= $1.dts })
        #expect(frames.allSatisfy { $0.dts.value >= 0 })
        #expect(video.allSatisfy { $0.dts.timescale == 90_000 })
        // The CLI's libx264 uses B-frames by default, so some presentation times lead their decode times.
        #expect(video.contains { $0.compositionOffset.value > 0 })
        for f in video { #expect(throws: Never.self) { _ = try H264.nalUnits(avcc: f.data) } }
    }

    @Test func rewindStartsOverFromTheFirstKeyframe() throws {
        let path = try makeFile("flv")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let source = try MediaFileSource(path: path)
        let first = try drain(source)
        try source.rewind()
        let second = try drain(source)
        #expect(second.count == first.count)
        #expect(second.first?.dts == first.first?.dts)
        #expect(second.first { $0.kind == .video }?.data == first.first { $0.kind == .video }?.data)
    }

    @Test func missingFileIsAClearError() throws {
        let error = try #require(throws: FFmpegError.self) { _ = try MediaFileSource(path: "/nonexistent/none.flv") }
        #expect(error.context.contains("/nonexistent/none.flv"))
        #expect(error.message.contains("No such file"))
    }

    @Test func unsupportedVideoCodecIsRejected() throws {
        let path = try makeFile("flv", videoCodec: "flv")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let error = try #require(throws: FFmpegError.self) { _ = try MediaFileSource(path: path) }
        #expect(error.message.contains("unsupported video codec"))
    }
}
