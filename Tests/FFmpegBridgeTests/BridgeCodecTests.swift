import CodecFormats
import FFmpegBridge
import Foundation
import MediaCore
import MediaTestSupport
import TestSupport
import Testing

/// The FFmpegBridge pieces the ladder is built from, each against real libav behaviour.
@Suite struct BridgeCodecTests {
    @Test func decoderExportsInjectedSEIWithEachPicturesPTS() throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (description, frames) = try TestMedia.frames(
            of: try TestMedia.makeFLV(in: dir, name: "src", seconds: 1, bFrames: 2)
        )
        let video = try #require(description.video)
        let decoder = try H264Decoder(avcC: video.decoderConfiguration)
        var expected: [Int64: Int64] = [:]
        var pictures: [DecodedPicture] = []
        for (i, var f) in frames.filter({ $0.kind == .video }).enumerated() {
            let capture = 1_700_000_000_000 + Int64(i) * 33
            f.data = try CaptureSEI.inject(captureMS: capture, into: f.data)
            expected[f.pts.value] = capture
            pictures += try decoder.decode(f)
        }
        pictures += try decoder.flush()
        #expect(pictures.count == expected.count)
        #expect(zip(pictures, pictures.dropFirst()).allSatisfy { $0.pts < $1.pts })
        for p in pictures {
            #expect(p.width == 1280 && p.height == 720)
            // x264's own banner SEI is not carried; ours is, exactly once.
            #expect(p.userDataUnregistered == [CaptureSEI.payload(captureMS: try #require(expected[p.pts.value]))])
        }
    }

    @Test func encoderMakesIDRsOnlyWhereForcedAndWritesTheSEI() throws {
        let encoder = try LadderVideoEncoder(.init(width: 320, height: 180, bitRate: 300_000, frameRate: 30))
        let forced: Set<Int> = [0, 17, 45]
        var out: [MediaFrame] = []
        for i in 0..<60 {
            let picture = try DecodedPicture.grey(
                width: 320,
                height: 180,
                pts: MediaTime(value: Int64(i) * 3_000, timescale: 90_000),
                userDataUnregistered: [CaptureSEI.payload(captureMS: Int64(i))]
            )
            out += try encoder.encode(picture, forceIDR: forced.contains(i))
        }
        out += try encoder.flush()
        #expect(out.count == 60)
        #expect(Set(out.indices.filter { out[$0].isKeyframe }) == forced)
        #expect(out.allSatisfy { H264.containsIDR(avcc: $0.data) == $0.isKeyframe && $0.compositionOffset.value == 0 })
        #expect(try out.map { try CaptureSEI.captures(in: $0.data) } == (0..<60).map { [Int64($0)] })
        #expect(encoder.videoParameters.width == 320 && encoder.videoParameters.height == 180)
    }

    @Test func encoderRejectsAPictureOfTheWrongSize() throws {
        let encoder = try LadderVideoEncoder(.init(width: 320, height: 180, bitRate: 300_000))
        let picture = try DecodedPicture.grey(width: 640, height: 360, pts: .zero(timescale: 90_000))
        #expect(throws: FFmpegError.self) { _ = try encoder.encode(picture, forceIDR: false) }
    }

    @Test func scalerKeepsPTSAndSEI() throws {
        let payload = CaptureSEI.payload(captureMS: 42)
        let picture = try DecodedPicture.grey(
            width: 1280,
            height: 720,
            pts: MediaTime(value: 9_000, timescale: 90_000),
            userDataUnregistered: [payload]
        )
        let scaled = try PictureScaler(width: 640, height: 360).scale(picture)
        #expect(scaled.width == 640 && scaled.height == 360)
        #expect(scaled.pts == picture.pts && scaled.userDataUnregistered == [payload])
    }

    @Test func aacRoundTripKeepsDurationAndContinuousTimestamps() throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (description, frames) = try TestMedia.frames(of: try TestMedia.makeFLV(in: dir, name: "a", seconds: 3))
        let audio = try #require(description.audio)
        #expect(audio.sampleRate == 44_100 && audio.channels == 1)
        let transcoder = try AACTranscoder(input: audio)
        var out: [MediaFrame] = []
        let input = frames.filter { $0.kind == .audio }
        for f in input { out += try transcoder.transcode(f) }
        out += try transcoder.flush()
        #expect(transcoder.outputParameters.sampleRate == 48_000 && transcoder.outputParameters.channels == 2)
        #expect(transcoder.outputParameters.codecString == "mp4a.40.2")
        #expect(out.allSatisfy { $0.dts.timescale == 48_000 && $0.kind == .audio })
        #expect(zip(out, out.dropFirst()).allSatisfy { $1.dts.value - $0.dts.value == 1_024 })
        let inSeconds = Double(input.count * 1_024) / 44_100
        let outSeconds = Double(out.count * 1_024 - transcoder.primingSamples) / 48_000
        #expect(abs(outSeconds - inSeconds) <= 1_024.0 / 48_000, "in \(inSeconds) s, out \(outSeconds) s")
        let firstIn = try #require(input.first).pts.converted(to: 48_000).value
        #expect(out.first?.dts.value == firstIn - Int64(transcoder.primingSamples))
    }
}
