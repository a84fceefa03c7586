import CodecFormats
import FMP4
import Foundation
import MediaCore
import TestSupport
import Testing

/// ISO/IEC 14496-15 §8.4.1 `hvc1` + hvcC and AV1 ISOBMFF binding §2.2 `av01` + av1C sample entries, from real
/// FFmpeg 9 E-RTMP SequenceStarts, read back by our box parser and by ffprobe.
struct EnhancedSampleEntryTests {
    static let hvcC = hex(
        """
        0101600000009000000000003cf000fcfdf8f800000f03200001001840010c01ffff01600000030090000003000003003c95900921\
        0001002a42010101600000030090000003000003003ca00a080f16595924932bc05a02000003000200000300321022000100074401\
        c172b46240
        """
    )
    static let av1C = hex("81000c000a0b0200000521e7fde017c002")

    static func track(_ video: VideoParameters) -> FMP4Track {
        FMP4Track(trackID: 1, timescale: 90_000, media: .video(video))
    }

    @Test func hevcInitSegmentHasHvc1WithHvcC() throws {
        let video = try VideoParameters(hevcDecoderConfiguration: Self.hvcC)
        let boxes = try MP4Box.parse(FMP4InitSegment.serialize(track: Self.track(video)))
        let stsd = try #require(MP4Box.find("moov/trak/mdia/minf/stbl/stsd", in: boxes))
        #expect(stsd.children.map(\.type) == ["hvc1"])
        #expect(stsd.children[0].children.map(\.type) == ["hvcC", "colr", "pasp"])
        #expect(Array(try #require(stsd.children[0].child("hvcC")).payload) == Self.hvcC)
        var r = try boxes[0].reader(skip: 8)
        #expect(try (0..<3).map { _ in try MP4Box.fourCC(&r) } == ["iso6", "cmfc", "mp41"])
    }

    @Test func av1InitSegmentHasAv01WithAv1CAndBrand() throws {
        let video = try VideoParameters(av1CodecConfiguration: Self.av1C)
        let boxes = try MP4Box.parse(FMP4InitSegment.serialize(track: Self.track(video)))
        let stsd = try #require(MP4Box.find("moov/trak/mdia/minf/stbl/stsd", in: boxes))
        #expect(stsd.children.map(\.type) == ["av01"])
        #expect(Array(try #require(stsd.children[0].child("av1C")).payload) == Self.av1C)
        var r = try boxes[0].reader(skip: 8)
        #expect(try (0..<4).map { _ in try MP4Box.fourCC(&r) } == ["iso6", "cmfc", "mp41", "av01"])
    }

    @Test(.enabled(if: FFmpegCLI.available, "needs ffprobe"), arguments: [("hevc", "Main", 60), ("av1", "Main", 0)])
    func ffprobeReadsCodecProfileAndLevelFromTheInitSegment(
        _ expected: (codec: String, profile: String, level: Int)
    )
        throws
    {
        let video =
            expected.codec == "hevc"
            ? try VideoParameters(hevcDecoderConfiguration: Self.hvcC)
            : try VideoParameters(av1CodecConfiguration: Self.av1C)
        let dir = try ExternalTool.temporaryDirectory(prefix: "init")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("init.mp4")
        try Data(FMP4InitSegment.serialize(track: Self.track(video))).write(to: url)
        let out = try FFmpegCLI.run(
            "ffprobe",
            [
                "-v", "error", "-show_entries", "stream=codec_name,profile,level,width,height", "-of", "csv=p=0",
                url.path,
            ]
        )
        #expect(
            out.trimmingCharacters(in: .whitespacesAndNewlines)
                == "\(expected.codec),\(expected.profile),320,240,\(expected.level)"
        )
    }
}
