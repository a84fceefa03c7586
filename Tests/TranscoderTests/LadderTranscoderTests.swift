import CodecFormats
import FFmpegBridge
import Foundation
import MediaCore
import MediaTestSupport
import StreamHub
import TestSupport
import Testing
import Transcoder

/// A real 720p30 testsrc2 source through the hub and the ladder: aligned IDRs, frame counts, sizes, SEI, decodability.
@Suite(.serialized) struct LadderTranscoderTests {
    @Test(arguments: [0, 2])
    func everyRungHasIDRsExactlyAtSourceKeyframesAndCarriesSEI(bFrames: Int) async throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (description, raw) = try TestMedia.frames(of: try TestMedia.makeFLV(in: dir, name: "src", bFrames: bFrames))
        let frames = try LadderHarness.withCaptureSEI(raw, firstCaptureMS: 1_763_000_000_000)
        let source = frames.filter { $0.kind == .video }
        let result = try await LadderHarness.run(segments: [(description, frames)], expectedRungs: ["480p", "360p"])

        #expect(Set(result.rungs.keys) == ["480p", "360p"])
        #expect(result.droppedAccessUnits == 0)
        let keyframePTS = Set(source.filter(\.isKeyframe).map(\.pts))
        #expect(keyframePTS.count == 3)
        let captureByPTS = Dictionary(
            uniqueKeysWithValues: source.map { ($0.pts, try! CaptureSEI.captures(in: $0.data)) }
        )
        let stampsByPTS = Dictionary(uniqueKeysWithValues: source.map { ($0.pts, $0.stamps) })
        let sizes = ["480p": (854, 480), "360p": (640, 360)]
        for (name, output) in result.rungs {
            let (width, height) = try #require(sizes[name])
            let video = try #require(output.descriptions.first?.video)
            let sps = try H264SPS(
                parsing: try #require(
                    try AVCDecoderConfigurationRecord(parsing: video.decoderConfiguration).sequenceParameterSets.first
                )
            )
            #expect(sps.width == width && sps.height == height, "\(name)")
            #expect(video.width == width && video.height == height)
            #expect(output.ended)
            #expect(output.frames.count == source.count, "\(name)")
            #expect(Set(output.frames.filter(\.isKeyframe).map(\.pts)) == keyframePTS, "\(name)")
            #expect(output.frames.allSatisfy { H264.containsIDR(avcc: $0.data) == $0.isKeyframe })
            #expect(Set(output.frames.map(\.pts)) == Set(source.map(\.pts)))
            #expect(zip(output.frames, output.frames.dropFirst()).allSatisfy { $0.dts < $1.dts })
            for f in output.frames {
                #expect(try CaptureSEI.captures(in: f.data) == captureByPTS[f.pts], "\(name) at \(f.pts)")
                // The source's stamps ride along; the ladder adds when the picture was decoded and encoded.
                var carried = f.stamps
                (carried.decoded, carried.encoded) = (nil, nil)
                #expect(carried == stampsByPTS[f.pts])
                #expect(f.stamps.decoded != nil && f.stamps.encoded != nil && f.stamps.isMonotonic)
            }
            let path = dir.appendingPathComponent("\(name).h264").path
            try Data(try TestMedia.annexB(avcC: video.decoderConfiguration, frames: output.frames)).write(
                to: URL(fileURLWithPath: path)
            )
            let probe = try TestMedia.probeH264(path)
            #expect(probe.frames == source.count && probe.width == width && probe.height == height, "\(name): \(probe)")
        }
        for s in result.statistics {
            print(
                "ladder bf=\(bFrames) \(s.name) \(s.width)x\(s.height): \(s.picturesEncoded) pictures, "
                    + "\(String(format: "%.1f", s.framesPerSecond)) fps (scale+encode on its thread), dropped \(s.picturesDropped)"
            )
            #expect(s.picturesDropped == 0 && s.errors == 0)
        }
        print(
            "ladder bf=\(bFrames): \(source.count) source frames in \(result.wallTime) wall → \(String(format: "%.1f", Double(source.count) / result.wallTime.secondsDouble)) fps end to end"
        )
    }

    /// Fast start (`transcode.fast_start`): with a short GOP and no B-frames, the top rendition is x264 at the source
    /// size, with IDRs at 0, at the early cut (0.4 s) and at the second keyframe, until that keyframe; from it on, the
    /// source's own frames, byte for byte. Its avcC holds both encoders' SPS/PPS, and the whole decodes.
    @Test func aBridgedTopRenditionIsEncodedUntilTheSecondKeyframeThenIsTheSource() async throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (description, raw) = try TestMedia.frames(of: try TestMedia.makeFLV(in: dir, name: "src"))
        let frames = try LadderHarness.withCaptureSEI(raw, firstCaptureMS: 1_763_000_000_000)
        let source = frames.filter { $0.kind == .video }
        var configuration = LadderHarness.losslessConfiguration
        configuration.firstSegment = EarlyFirstSegment(length: .milliseconds(400), bridgesShortGOPs: true)
        let result = try await LadderHarness.run(
            segments: [(description, frames)],
            expectedRungs: ["480p", "360p"],
            lateRungs: ["720p"],
            configuration: configuration
        )
        let top = try #require(result.rungs["720p"])
        let sourceRecord = try AVCDecoderConfigurationRecord(
            parsing: try #require(description.video?.decoderConfiguration)
        )
        let video = try #require(top.descriptions.first?.video)
        let record = try AVCDecoderConfigurationRecord(parsing: video.decoderConfiguration)
        #expect(record.sequenceParameterSets.count == 2 && record.pictureParameterSets.count == 2)
        #expect(record.sequenceParameterSets.first == sourceRecord.sequenceParameterSets.first)
        #expect(record.parameterSetIDs?.sps.count == 2)
        #expect(video.codecString == description.video?.codecString)
        let keyframes = source.filter(\.isKeyframe).map(\.pts)
        let handover = keyframes[1]
        #expect(top.frames.count == source.count && top.ended)
        #expect(top.frames.filter(\.isKeyframe).map(\.pts) == [keyframes[0], source[12].pts] + keyframes.dropFirst())
        let sourceByPTS = Dictionary(uniqueKeysWithValues: source.map { ($0.pts, $0.data) })
        for f in top.frames {
            if f.pts >= handover {
                #expect(f.data == sourceByPTS[f.pts], "source frame at \(f.pts)")
            } else {
                #expect(f.data != sourceByPTS[f.pts], "encoded at \(f.pts)")
            }
        }
        let path = dir.appendingPathComponent("top.h264").path
        try Data(try TestMedia.annexB(avcC: video.decoderConfiguration, frames: top.frames)).write(
            to: URL(fileURLWithPath: path)
        )
        let probe = try TestMedia.probeH264(path)
        #expect(probe.frames == source.count && probe.width == 1280 && probe.height == 720, "\(probe)")
        // The lower rungs are as ever: an IDR at the early cut too.
        let lower = try #require(result.rungs["480p"])
        #expect(lower.frames.filter(\.isKeyframe).map(\.pts) == [keyframes[0], source[12].pts] + keyframes.dropFirst())
    }

    @Test func newSourceResolutionRestartsTheLadderWithANewDescriptionPerRung() async throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (d1, f1) = try TestMedia.frames(of: try TestMedia.makeFLV(in: dir, name: "wide", seconds: 1))
        let (d2, f2) = try TestMedia.frames(
            of: try TestMedia.makeFLV(in: dir, name: "four3", size: "960x720", seconds: 1)
        )
        let first = try LadderHarness.withCaptureSEI(f1, firstCaptureMS: 1_000)
        let second = LadderHarness.shifted(
            try LadderHarness.withCaptureSEI(f2, firstCaptureMS: 5_000),
            by: MediaTime(value: 90_000, timescale: 90_000)
        )
        let result = try await LadderHarness.run(
            segments: [(d1, first), (d2, second)],
            expectedRungs: ["480p", "360p"]
        )
        let switchPTS = try #require(second.first { $0.kind == .video }).pts
        let expected = ["480p": [854, 640], "360p": [640, 480]]
        for (name, output) in result.rungs {
            #expect(output.descriptions.compactMap { $0.video?.width } == expected[name], "\(name)")
            #expect(output.frames.count == (first + second).filter { $0.kind == .video }.count)
            // The new ladder starts with an IDR exactly where the new source starts.
            #expect(output.frames.first { $0.pts >= switchPTS }?.isKeyframe == true)
            #expect(output.frames.first { $0.pts >= switchPTS }?.pts == switchPTS)
        }
    }

    @Test func aSmallSourceGetsNoRungsAndEndsCleanly() async throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (description, frames) = try TestMedia.frames(
            of: try TestMedia.makeFLV(in: dir, name: "small", size: "640x360", seconds: 1)
        )
        let result = try await LadderHarness.run(segments: [(description, frames)], expectedRungs: [])
        #expect(result.rungs.isEmpty && result.statistics.isEmpty)
    }

    @Test func serviceLaddersSourcesButNeverDerivedKeys() async throws {
        let hub = StreamHub()
        let service = TranscoderService(hub: hub)
        let running = Task { await service.run() }
        defer { running.cancel() }
        let video = VideoParameters(
            decoderConfiguration: try LadderVideoEncoder(.init(width: 1280, height: 720, bitRate: 1_000_000))
                .videoParameters
                .decoderConfiguration,
            width: 1280,
            height: 720,
            codecString: "avc1.64001f",
            frameRate: 30
        )
        let derived = try hub.publish(key: StreamKey("other")!.rendition("720p"), origin: "test")
        derived.update(description: StreamDescription(video: video))
        let source = try hub.publish(key: StreamKey("cam")!, origin: "test")
        source.update(description: StreamDescription(video: video))
        let deadline = ContinuousClock.now + .seconds(10)
        while !hub.liveKeys.contains(StreamKey("cam")!.rendition("360p")) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(Set(hub.liveKeys.map(\.rawValue)) == ["cam", "cam~480p", "cam~360p", "other~720p"])
        source.end()
        while hub.liveKeys.count > 1 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(hub.liveKeys.map(\.rawValue) == ["other~720p"])
        derived.end()
    }
}

/// Behaviour under load and for bigger sources.
@Suite(.serialized) struct LadderLoadTests {
    @Test func aRungThatFallsBehindDropsUntilTheNextSourceKeyframe() async throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (description, frames) = try TestMedia.frames(of: try TestMedia.makeFLV(in: dir, name: "src"))
        var configuration = LadderHarness.losslessConfiguration
        configuration.rungQueueCapacity = 1
        // A slower preset makes every rung slower than the decoder, so overflow is certain.
        configuration.preset = "medium"
        let result = try await LadderHarness.run(
            segments: [(description, frames)],
            expectedRungs: ["480p", "360p"],
            configuration: configuration
        )
        let source = frames.filter { $0.kind == .video }
        let keyframePTS = Set(source.filter(\.isKeyframe).map(\.pts))
        #expect(result.statistics.contains { $0.picturesDropped > 0 })
        for s in result.statistics {
            let output = try #require(result.rungs[s.name])
            #expect(output.frames.count + s.picturesDropped == source.count, "\(s.name)")
            // Whatever was lost, every IDR is still at a source keyframe and each run of frames starts on one.
            #expect(output.frames.first?.isKeyframe ?? true)
            #expect(Set(output.frames.filter(\.isKeyframe).map(\.pts)).isSubset(of: keyframePTS))
        }
    }

    @Test(arguments: [0, 1])
    func a1080pSourceGetsEveryLowerRung(encoderThreads: Int) async throws {
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (description, frames) = try TestMedia.frames(
            of: try TestMedia.makeFLV(in: dir, name: "fhd", size: "1920x1080", seconds: 2)
        )
        var configuration = LadderHarness.losslessConfiguration
        configuration.encoderThreads = encoderThreads
        let result = try await LadderHarness.run(
            segments: [(description, frames)],
            expectedRungs: ["480p", "360p"],
            lateRungs: ["720p"],
            configuration: configuration
        )
        let count = frames.filter { $0.kind == .video }.count
        let sizes = result.rungs.mapValues { $0.descriptions.first?.video.map { "\($0.width)x\($0.height)" } }
        #expect(sizes == ["720p": "1280x720", "480p": "854x480", "360p": "640x360"])
        #expect(result.rungs.values.allSatisfy { $0.frames.count == count })
        for s in result.statistics {
            print(
                "ladder 1080p source, x264 threads=\(encoderThreads == 0 ? "auto" : "\(encoderThreads)") \(s.name): "
                    + "\(String(format: "%.1f", s.framesPerSecond)) fps"
            )
        }
        print(
            "ladder 1080p source, threads=\(encoderThreads): \(count) frames in \(result.wallTime) → "
                + "\(String(format: "%.1f", Double(count) / result.wallTime.secondsDouble)) fps end to end"
        )
    }
}
