import CodecFormats
import FFmpegBridge
import Foundation
import MediaCore
import TestSupport
import Testing

/// The test pattern encoded with libx265 and SVT-AV1 (the bench's live E-RTMP sources): records from the encoder's
/// global header checked against the ones FFmpeg's own MP4 muxer writes for the same stream.
@Suite struct EnhancedPatternSourceTests {
    private static func drain(
        _ codec: Codec,
        bFrames: Int = 0,
        seconds: Int = 2
    ) throws -> (VideoParameters, [MediaFrame]) {
        let config = TestPatternSource.Configuration(
            width: 640,
            height: 360,
            bFrames: bFrames,
            videoCodec: codec,
            duration: .seconds(seconds)
        )
        let source = try TestPatternSource(configuration: config)
        var frames: [MediaFrame] = []
        while let f = try source.nextFrame() { frames.append(f) }
        return (try #require(source.streamDescription.video), frames.filter { $0.kind == .video })
    }

    /// The record box FFmpeg's mp4 muxer writes (`hvcC` / `av1C`), found by its type in the file.
    private static func muxedRecord(_ type: String, in file: URL) throws -> [UInt8] {
        let bytes = [UInt8](try Data(contentsOf: file))
        let tag = Array(type.utf8)
        let at = try #require((4..<(bytes.count - 4)).first { Array(bytes[$0..<$0 + 4]) == tag })
        let size = bytes[at - 4..<at].reduce(0) { $0 << 8 | Int($1) }
        return Array(bytes[at + 4..<at - 4 + size])
    }

    @Test func hevcWithBFramesHasIDRsOnTheGOPAndReorderedPictures() throws {
        let (video, frames) = try Self.drain(.hevc, bFrames: 2)
        #expect(video.codec == .hevc && video.width == 640 && video.height == 360)
        #expect(video.codecString.hasPrefix("hvc1.1."))
        #expect(frames.count == 60)
        #expect(frames.indices.filter { frames[$0].isKeyframe } == [0, 30])
        #expect(frames.contains { $0.compositionOffset.value > 0 })
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.dts < $1.dts })
        #expect(Set(frames.map(\.pts.value)).count == 60)
        #expect(frames.allSatisfy { $0.stamps.capture != nil })
        // 4-byte lengths, and no parameter sets in the samples (hvc1: they live in the record only).
        for f in frames {
            let types = try H264.nalUnits(avcc: f.data).map { ($0[$0.startIndex] >> 1) & 0x3F }
            #expect(!types.isEmpty && !types.contains { (32...34).contains($0) })
        }
    }

    @Test func hvcCMatchesFFmpegMuxerForTheSameStream() throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (video, frames) = try Self.drain(.hevc, bFrames: 2, seconds: 1)
        let ours = try HEVCDecoderConfigurationRecord(parsing: video.decoderConfiguration)
        // The same stream as Annex B (parameter sets first), remuxed by FFmpeg, which builds its own hvcC. Three-byte
        // start codes: FFmpeg keeps a four-byte one's zero_byte as the end of the NAL unit before it.
        var annexB: [UInt8] = []
        for nal in ours.arrays.flatMap(\.nalUnits) { annexB += [0, 0, 1] + nal }
        for f in frames { for nal in try H264.nalUnits(avcc: f.data) { annexB += [0, 0, 1] + nal } }
        let raw = dir.appendingPathComponent("pattern.hevc")
        let mp4 = dir.appendingPathComponent("pattern.mp4")
        try Data(annexB).write(to: raw)
        let remux = try ExternalTool.runCapturing(
            "ffmpeg",
            ["-v", "error", "-y", "-f", "hevc", "-i", raw.path, "-c", "copy", "-tag:v", "hvc1", mp4.path]
        )
        #expect(remux.status == 0, "\(remux.stderr)")
        let theirs = try HEVCDecoderConfigurationRecord(parsing: try Self.muxedRecord("hvcC", in: mp4))
        #expect(ours.profileTierLevel == theirs.profileTierLevel)
        #expect(ours.chromaFormat == theirs.chromaFormat && ours.bitDepthLumaMinus8 == theirs.bitDepthLumaMinus8)
        #expect(ours.nalUnitLengthSize == 4 && theirs.nalUnitLengthSize == 4)
        for type in [HEVCDecoderConfigurationRecord.vpsType, HEVCDecoderConfigurationRecord.spsType, 34] {
            #expect(ours.nalUnits(ofType: type) == theirs.nalUnits(ofType: type))
            #expect(ours.nalUnits(ofType: type).count == 1)
        }
        // ffprobe decodes what we made and names the profile our CODECS string carries (hvc1.1 = Main). The edit list
        // FFmpeg writes for a raw B-frame stream hides one picture (its own libx265 output does the same): ignored.
        let probe = try ExternalTool.runCapturing(
            "ffprobe",
            [
                "-v", "error", "-ignore_editlist", "1", "-count_frames", "-show_entries",
                "stream=profile,nb_read_frames",
                "-of", "csv=p=0", mp4.path,
            ]
        )
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "Main,30")
    }

    @Test func av1HasKeyFramesOnTheGOPAndNoTemporalDelimiters() throws {
        let (video, frames) = try Self.drain(.av1)
        #expect(video.codec == .av1 && video.width == 640 && video.height == 360)
        #expect(video.codecString.hasPrefix("av01.0.") && video.codecString.hasSuffix("M.08"))
        #expect(frames.count == 60)
        #expect(frames.indices.filter { frames[$0].isKeyframe } == [0, 30])
        for f in frames {
            let types = try AV1OBU.split(f.data).map(\.type)
            #expect(!types.isEmpty && !types.contains(AV1OBU.temporalDelimiter))
            #expect(AV1OBU.containsKeyFrame(temporalUnit: f.data) == f.isKeyframe)
        }
    }

    @Test func av1CIsTheOneFFmpegWritesForTheSameEncoderAndTheStreamDecodes() throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (video, frames) = try Self.drain(.av1, seconds: 1)
        // FFmpeg's CLI, same encoder and settings, straight into its MP4 muxer: its av1C comes from the same SVT-AV1
        // global header ours does (SVT's header differs from the in-band one in tool bits; both FFmpeg and we use it).
        let direct = dir.appendingPathComponent("direct.mp4")
        let encode = try ExternalTool.runCapturing(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-t", "1", "-c:v",
                "libsvtav1", "-preset", "12", "-g", "30", "-b:v", "2500k", "-svtav1-params", "scd=0:pred-struct=1",
                "-pix_fmt", "yuv420p", direct.path,
            ]
        )
        #expect(encode.status == 0, "\(encode.stderr)")
        let theirs = try Self.muxedRecord("av1C", in: direct)
        #expect(
            theirs == video.decoderConfiguration,
            "FFmpeg \(hexString(theirs)), ours \(hexString(video.decoderConfiguration))"
        )
        // Our samples as a low-overhead OBU stream (§5.2: each temporal unit opens with a delimiter) decode whole.
        let raw = dir.appendingPathComponent("pattern.obu")
        let mp4 = dir.appendingPathComponent("pattern.mp4")
        try Data(frames.flatMap { [0x12, 0x00] + $0.data }).write(to: raw)
        let remux = try ExternalTool.runCapturing(
            "ffmpeg",
            ["-v", "error", "-y", "-f", "obu", "-i", raw.path, "-c", "copy", mp4.path]
        )
        #expect(remux.status == 0, "\(remux.stderr)")
        let probe = try ExternalTool.runCapturing(
            "ffprobe",
            [
                "-v", "error", "-count_frames", "-show_entries", "stream=profile,nb_read_frames", "-of", "csv=p=0",
                mp4.path,
            ]
        )
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "Main,30")
    }
}

/// Lower-case hex for failure messages.
private func hexString(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
