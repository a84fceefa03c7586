import CodecFormats
import FFmpegBridge
import MediaCore
import Testing

/// The in-process test pattern: x264 video + AAC tone with the timing the rest of Sluice relies on.
@Suite struct TestPatternSourceTests {
    private func drain(_ source: TestPatternSource) throws -> [MediaFrame] {
        var frames: [MediaFrame] = []
        while let f = try source.nextFrame() { frames.append(f) }
        return frames
    }

    @Test func twoSecondsAtThirtyFPSGiveSixtyFramesWithAKeyframeEveryGOP() throws {
        let source = try TestPatternSource(duration: .seconds(2))
        let frames = try drain(source)
        let video = frames.filter { $0.kind == .video }
        #expect(video.count == 60)
        #expect(video.first?.isKeyframe == true)
        let keyIndices = video.indices.filter { video[$0].isKeyframe }
        #expect(keyIndices == [0, 30])
        for i in keyIndices { #expect(H264.containsIDR(avcc: video[i].data)) }
        #expect(video.allSatisfy { $0.dts.timescale == 90_000 })
        #expect(zip(video, video.dropFirst()).allSatisfy { $0.dts.value + 3_000 == $1.dts.value })
        // AAC priming (1024 samples = 1920 ticks) moves both tracks later together so nothing starts below zero.
        #expect(frames.first?.dts.value == 0)
        #expect(video.first?.dts.value == 1_920)
        #expect(video.allSatisfy { $0.stamps.capture != nil })
    }

    @Test func framesComeInDecodeOrderAcrossTracks() throws {
        let frames = try drain(try TestPatternSource(duration: .seconds(1)))
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.dts <= $1.dts })
        #expect(frames.allSatisfy { $0.dts.value >= 0 })
    }

    @Test func spsDescribes1280x720() throws {
        let source = try TestPatternSource(duration: .seconds(1))
        let video = try #require(source.streamDescription.video)
        let record = try AVCDecoderConfigurationRecord(parsing: video.decoderConfiguration)
        let sps = try H264SPS(parsing: try #require(record.sequenceParameterSets.first))
        #expect(sps.width == 1280)
        #expect(sps.height == 720)
        #expect(video.width == 1280 && video.height == 720)
        #expect(record.nalUnitLengthSize == 4)
    }

    @Test func videoPacketsAreFourByteAVCC() throws {
        let frames = try drain(try TestPatternSource(duration: .milliseconds(500)))
        for f in frames where f.kind == .video {
            let nals = try H264.nalUnits(avcc: f.data)
            #expect(!nals.isEmpty)
            #expect(nals.allSatisfy { !$0.isEmpty && $0.first! & 0x80 == 0 })
        }
    }

    @Test func bFramesProduceCompositionOffsets() throws {
        let config = TestPatternSource.Configuration(width: 640, height: 360, bFrames: 2, duration: .seconds(2))
        let frames = try drain(try TestPatternSource(configuration: config))
        let video = frames.filter { $0.kind == .video }
        #expect(video.count == 60)
        #expect(video.contains { $0.compositionOffset.value > 0 })
        #expect(video.allSatisfy { $0.compositionOffset.value >= 0 })
        #expect(zip(video, video.dropFirst()).allSatisfy { $0.dts < $1.dts })
        // Presentation times cover every picture exactly once.
        #expect(Set(video.map { $0.pts.value }).count == 60)
    }

    @Test func audioIsAACAt48kHzIn1024SampleFrames() throws {
        let source = try TestPatternSource(duration: .seconds(1))
        let audio = try #require(source.streamDescription.audio)
        #expect(audio.sampleRate == 48_000)
        #expect(audio.channels == 2)
        #expect(audio.codecString == "mp4a.40.2")
        let frames = try drain(source).filter { $0.kind == .audio }
        #expect(frames.count >= 47)
        #expect(frames.allSatisfy { $0.dts.timescale == 48_000 && $0.isKeyframe && !$0.data.isEmpty })
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $1.dts.value - $0.dts.value == 1_024 })
    }

    @Test func gopAndSizeAreConfigurable() throws {
        let config = TestPatternSource.Configuration(width: 320, height: 240, fps: 25, gop: 10, duration: .seconds(1))
        let source = try TestPatternSource(configuration: config)
        #expect(source.streamDescription.video?.width == 320)
        let video = try drain(source).filter { $0.kind == .video }
        #expect(video.count == 25)
        #expect(video.indices.filter { video[$0].isKeyframe } == [0, 10, 20])
    }

    @Test func oddSizesAreRejected() {
        #expect(throws: FFmpegError.self) {
            _ = try TestPatternSource(configuration: .init(width: 321, height: 240))
        }
    }
}
