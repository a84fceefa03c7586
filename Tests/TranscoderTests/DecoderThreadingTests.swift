import CodecFormats
import FFmpegBridge
import Foundation
import MediaCore
import MediaTestSupport
import TestSupport
import Testing
import Transcoder

/// How the ladder spreads decode and encode over the cores, and that threading changes no picture.
@Suite struct DecoderThreadingTests {
    @Test func slicedSourcesGetSliceThreadsAndOnlyHighRatesPayAPictureForFrameThreads() {
        #expect(
            DecoderThreading.choose(slicesPerPicture: 4, width: 1280, height: 720, frameRate: 30, cores: 2)
                == .slices(2)
        )
        #expect(
            DecoderThreading.choose(slicesPerPicture: 3, width: 1280, height: 720, frameRate: 30, cores: 8)
                == .slices(3)
        )
        #expect(
            DecoderThreading.choose(
                slicesPerPicture: 1,
                width: 1920,
                height: 1080,
                frameRate: 60,
                cores: 8,
                encoders: 4
            ) == .frames(2)
        )
        // Two cores and three encoders: no core to spare for a second decoding thread.
        #expect(
            DecoderThreading.choose(
                slicesPerPicture: 1,
                width: 1920,
                height: 1080,
                frameRate: 60,
                cores: 2,
                encoders: 3
            ) == .single
        )
        #expect(
            DecoderThreading.choose(slicesPerPicture: 1, width: 1920, height: 1080, frameRate: 30, cores: 2) == .single
        )
        #expect(
            DecoderThreading.choose(slicesPerPicture: 4, width: 1920, height: 1080, frameRate: 60, cores: 1) == .single
        )
    }

    @Test func everyThreadingDecodesTheSamePicturesInTheSameOrder() throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (description, frames) = try TestMedia.frames(
            of: try TestMedia.makeFLV(in: dir, name: "src", size: "640x360", seconds: 2, bFrames: 2)
        )
        let video = try #require(description.video)
        func decode(_ threading: DecoderThreading) throws -> [Int64] {
            let decoder = try H264Decoder(avcC: video.decoderConfiguration, threading: threading)
            var pictures: [DecodedPicture] = []
            for f in frames where f.kind == .video { pictures += try decoder.decode(f) }
            pictures += try decoder.flush()
            #expect(pictures.allSatisfy { $0.width == 640 && $0.height == 360 }, "\(threading)")
            return pictures.map(\.pts.value)
        }
        let single = try decode(.single)
        #expect(single.count == frames.filter { $0.kind == .video }.count)
        #expect(try decode(.frames(2)) == single)
        #expect(try decode(.slices(2)) == single)
    }

    @Test func x264ThreadsFollowEachRungsShareOfThePixels() {
        let plan = [
            PlannedRung(name: "720p", width: 1280, height: 720, videoBitRate: BitRate(kbps: 2_800)),
            PlannedRung(name: "480p", width: 854, height: 480, videoBitRate: BitRate(kbps: 1_400)),
            PlannedRung(name: "360p", width: 640, height: 360, videoBitRate: BitRate(kbps: 800)),
        ]
        #expect(plan.map { LadderPlan.encoderThreads(for: $0, in: plan, cores: 2) } == [2, 1, 1])
        #expect(plan.map { LadderPlan.encoderThreads(for: $0, in: plan, cores: 8) } == [5, 3, 2])
        #expect(plan.map { LadderPlan.encoderThreads(for: $0, in: plan, cores: 1) } == [1, 1, 1])
        #expect(LadderPlan.encoderThreads(for: plan[2], in: plan, cores: 8, configured: 3) == 3)
    }
}
