import CodecFormats
import FMP4
import Foundation
import MediaCore
import TestSupport
import Testing

/// Writes real encoder output through FMP4 and checks that ffmpeg's demuxer and decoders accept every frame.
@Suite(.enabled(if: FFmpegCLI.available, "needs ffmpeg and ffprobe"), .serialized)
struct FMP4DecoderTests {
    @Test func ffmpegDecodesSixtyH264FramesWithBFrames() throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("src.mp4")
        let annexB = dir.appendingPathComponent("src.h264")
        try FFmpegCLI.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "60", "-c:v",
                "libx264",
                "-bf", "2", "-g", "30", "-x264-params", "aud=1", "-video_track_timescale", "90000", source.path,
            ]
        )
        try FFmpegCLI.run(
            "ffmpeg",
            ["-v", "error", "-i", source.path, "-c", "copy", "-bsf:v", "h264_mp4toannexb", "-f", "h264", annexB.path]
        )
        // Decode-order packets: pts,dts,duration,flags in 1/90 000.
        let packets = try FFmpegCLI.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts,dts,duration,flags", "-of",
                "csv=p=0",
                source.path,
            ]
        ).split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        try #require(packets.count == 60)

        // §7.4.1.2.3: a non-VCL NAL unit after a slice starts the next access unit (x264 emits one slice each).
        let nals = H264.nalUnits(annexB: Array(try Data(contentsOf: annexB)))
        var accessUnits: [[ArraySlice<UInt8>]] = []
        var sawSlice = true
        for nal in nals {
            let isSlice = (1...5).contains(H264.nalType(nal))
            if !isSlice && sawSlice { accessUnits.append([]) }
            sawSlice = isSlice
            accessUnits[accessUnits.count - 1].append(nal)
        }
        try #require(accessUnits.count == 60)
        let sps = try #require(nals.first { H264.nalType($0) == H264NALUnitType.sps.rawValue })
        let pps = try #require(nals.first { H264.nalType($0) == H264NALUnitType.pps.rawValue })
        let record = AVCDecoderConfigurationRecord(sps: Array(sps), pps: Array(pps))
        let video = try VideoParameters(avcDecoderConfiguration: record.serialize())
        #expect(video.width == 320 && video.height == 240 && video.frameRate == 30)

        var samples: [FMP4Sample] = []
        for (unit, packet) in zip(accessUnits, packets) {
            let data = H264.avcc(fromAnnexB: unit.flatMap { [0, 0, 0, 1] + $0 })
            let isSync = H264.containsIDR(avcc: data)
            #expect(isSync == packet[3].hasPrefix("K"))
            samples.append(
                FMP4Sample(
                    duration: UInt32(packet[2])!,
                    compositionOffset: Int32(Int64(packet[0])! - Int64(packet[1])!),
                    isSync: isSync,
                    data: data
                )
            )
        }
        #expect(samples.contains { $0.compositionOffset > 0 }, "B-frames give composition offsets")

        let track = FMP4Track(trackID: 1, timescale: 90_000, media: .video(video))
        var file = FMP4InitSegment.serialize(track: track)
        file += FMP4Fragment.serialize(
            sequenceNumber: 1,
            trackID: 1,
            baseMediaDecodeTime: 0,
            samples: Array(samples[..<30])
        )
        file += FMP4Fragment.serialize(
            sequenceNumber: 2,
            trackID: 1,
            baseMediaDecodeTime: 30 * 3000,
            samples: Array(samples[30...])
        )
        let output = dir.appendingPathComponent("out.mp4")
        try Data(file).write(to: output)

        #expect(try FFmpegCLI.decodeDiagnostics(output) == "")
        let decoded = try FFmpegCLI.probeDecoded(output, stream: "v")
        #expect(decoded.frames == 60)
        #expect(abs(decoded.duration - 2.0) < 0.001, "duration \(decoded.duration)")
    }

    @Test func ffmpegDecodesEveryAACFrameFromStrippedADTS() throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let adts = dir.appendingPathComponent("src.aac")
        try FFmpegCLI.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "1", "-ac", "2",
                "-c:a", "aac", "-f", "adts", adts.path,
            ]
        )
        let frames = try ADTS.frames(Array(try Data(contentsOf: adts)))
        try #require(frames.count > 40)
        let config = frames[0].header.config
        #expect(config == AudioSpecificConfig(objectType: 2, sampleRate: 48_000, channels: 2))
        let audio = try AudioParameters(audioSpecificConfig: config.serialize())

        let samples = frames.map { FMP4Sample(duration: 1024, isSync: true, data: Array($0.payload)) }
        let half = samples.count / 2
        let track = FMP4Track(trackID: 1, timescale: 48_000, media: .audio(audio))
        var file = FMP4InitSegment.serialize(track: track)
        file += FMP4Fragment.serialize(
            sequenceNumber: 1,
            trackID: 1,
            baseMediaDecodeTime: 0,
            samples: Array(samples[..<half])
        )
        file += FMP4Fragment.serialize(
            sequenceNumber: 2,
            trackID: 1,
            baseMediaDecodeTime: UInt64(half * 1024),
            samples: Array(samples[half...])
        )
        let output = dir.appendingPathComponent("out.mp4")
        try Data(file).write(to: output)

        #expect(try FFmpegCLI.decodeDiagnostics(output) == "")
        let decoded = try FFmpegCLI.probeDecoded(output, stream: "a")
        #expect(decoded.frames == frames.count)
        let expected = Double(frames.count * 1024) / 48_000
        #expect(abs(decoded.duration - expected) < 0.001, "duration \(decoded.duration) vs \(expected)")
    }
}
