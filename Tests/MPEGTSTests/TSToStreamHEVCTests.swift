import CodecFormats
import Foundation
import MediaCore
import TestSupport
import Testing

@testable import MPEGTS

/// H.265 in MPEG-TS (stream_type 0x24, ISO/IEC 13818-1 §2.17) from ffmpeg's muxer and libx265, against ffprobe.
@Suite struct TSToStreamHEVCTests {
    /// Runs ffmpeg (`args` between the inputs and the output) into a TS file; returns its path and bytes.
    static func ffmpegTS(_ dir: URL, _ name: String, video: [String]) throws -> (path: String, bytes: [UInt8]) {
        let ts = dir.appendingPathComponent(name).path
        try #require(
            ExternalTool.run(
                "ffmpeg",
                [
                    "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "2",
                ] + video + ["-c:a", "aac", "-f", "mpegts", ts]
            ).status == 0
        )
        return (ts, Array(try Data(contentsOf: URL(fileURLWithPath: ts))))
    }

    static let x265 = [
        "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "keyint=30:bframes=2:log-level=error",
    ]

    /// ffprobe's video packets: pts, dts, keyframe flag.
    static func probe(_ path: String) throws -> [(pts: Int64, dts: Int64, key: Bool)] {
        let out = try ExternalTool.run(
            "ffprobe",
            ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts,dts,flags", "-of", "csv=p=0", path]
        ).output
        return out.split(separator: "\n").map { line in
            let f = line.split(separator: ",")
            return (Int64(f[0]) ?? -1, Int64(f[1]) ?? -1, f[2].hasPrefix("K"))
        }
    }

    @Test func libx265sTransportStreamBecomesHEVCFramesLikeFFprobe() throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (path, ts) = try Self.ffmpegTS(dir, "hevc.ts", video: Self.x265)
        var adapter = TSToStream()
        let outputs = try adapter.feed(ts, stamps: HopStamps()) + adapter.flush(stamps: HopStamps())
        let descriptions = outputs.compactMap { if case .description(let d) = $0 { d } else { nil } }
        let video = try #require(descriptions.first?.video)
        #expect(descriptions.count == 1)
        #expect(video.codec == .hevc && video.width == 320 && video.height == 240)
        // ffprobe: profile Main, level_idc as 30 × level.
        let level =
            try ExternalTool.run(
                "ffprobe",
                [
                    "-v", "error", "-select_streams", "v", "-show_entries", "stream=profile,level", "-of", "csv=p=0",
                    path,
                ]
            ).output.split(separator: "\n").first.map(String.init) ?? ""
        #expect(level.hasPrefix("Main,"))
        #expect(video.codecString == "hvc1.1.6.L\(level.dropFirst(5)).90")
        #expect(
            try HEVCDecoderConfigurationRecord(parsing: video.decoderConfiguration).arrays.map(\.nalUnitType) == [
                32, 33, 34,
            ]
        )
        #expect(descriptions.first?.audio?.codec == .aac)

        let frames = TSToStreamTests.frames(outputs).filter { $0.kind == .video }
        let expected = try Self.probe(path)
        #expect(expected.count == 60)
        #expect(frames.count == expected.count)
        #expect(adapter.framesDroppedBeforeParameters == 0)
        // The first DTS lands at the timeline's start; every time then sits on the 100 µs grid (TSToStream).
        let shift = try #require(frames.first).dts.value - expected[0].dts
        #expect(frames.map(\.dts.value) == expected.map { TSToStream.onMicrosecondGrid($0.dts + shift) })
        #expect(
            frames.map { $0.dts.value + $0.compositionOffset.value }
                == expected.map { TSToStream.onMicrosecondGrid($0.pts + shift) }
        )
        #expect(frames.map(\.isKeyframe) == expected.map(\.key))
        #expect(frames.contains { $0.compositionOffset.value > 0 })
        // Samples hold length-prefixed NAL units and no parameter sets or delimiters (they live in hvcC).
        for frame in frames {
            let types = try H264.nalUnits(avcc: frame.data).map { HEVC.nalType($0) }
            #expect(!types.isEmpty && !types.contains { (32...35).contains($0) })
        }
    }

    /// An encoder restarted from H.264 to H.265 on the same PID: the PMT changes, the description follows.
    @Test func aPMTChangeFromH264ToHEVCAnnouncesTheNewCodecAndKeepsEveryFrame() throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let avc = try Self.ffmpegTS(dir, "avc.ts", video: ["-c:v", "libx264", "-g", "30", "-bf", "0"])
        let hevc = try Self.ffmpegTS(dir, "hevc.ts", video: Self.x265)
        var adapter = TSToStream()
        let outputs =
            try adapter.feed(avc.bytes, stamps: HopStamps()) + adapter.feed(hevc.bytes, stamps: HopStamps())
            + adapter.flush(stamps: HopStamps())
        let codecs = outputs.compactMap { if case .description(let d) = $0 { d.video?.codec } else { nil } }
        #expect(codecs == [.h264, .hevc])
        let frames = TSToStreamTests.frames(outputs).filter { $0.kind == .video }
        #expect(frames.count == 120)
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $1.dts > $0.dts })
        #expect(adapter.demuxer.programChanges == 1)
        #expect(adapter.demuxer.droppedPES == 0)
    }
}
