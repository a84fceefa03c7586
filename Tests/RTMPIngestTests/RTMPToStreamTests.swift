import CodecFormats
import Foundation
import MediaCore
import RTMPIngest
import RTMPWire
import Testing

/// RTMPToStream fed with FLV tags that the real `ffmpeg` wrote.
struct RTMPToStreamTests {
    /// Tags of a one-second 320x240 H.264 + AAC FLV written by ffmpeg, cached per process.
    static let tags: [FLVTag] = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rtmp-to-stream-\(getpid()).flv").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = [
            "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25",
            "-f", "lavfi", "-i", "sine=sample_rate=44100", "-t", "1", "-c:v", "libx264", "-g", "10", "-bf", "0",
            "-c:a", "aac", "-f", "flv", path,
        ]
        try? p.run()
        p.waitUntilExit()
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        var reader = ByteReader(Array(data), offset: 13)  // FLV header (9) + PreviousTagSize0 (4).
        var tags: [FLVTag] = []
        while reader.remaining > 0, let tag = try? FLVTag.read(from: &reader) { tags.append(tag) }
        return tags
    }()

    static func feed(_ adapter: inout RTMPToStream, _ tag: FLVTag) throws -> [RTMPToStream.Output] {
        switch tag.kind {
        case .video: try adapter.video(timestamp: tag.timestamp, body: tag.body, stamps: HopStamps())
        case .audio: try adapter.audio(timestamp: tag.timestamp, body: tag.body, stamps: HopStamps())
        case .script: []
        }
    }

    static func descriptions(_ outputs: [RTMPToStream.Output]) -> [StreamDescription] {
        outputs.compactMap { if case .description(let d) = $0 { d } else { nil } }
    }

    static func frames(_ outputs: [RTMPToStream.Output]) -> [MediaFrame] {
        outputs.compactMap { if case .frame(let f) = $0 { f } else { nil } }
    }

    @Test func descriptionWaitsForBothSequenceHeadersThenFramesFlow() throws {
        var adapter = RTMPToStream()
        var outputs: [RTMPToStream.Output] = []
        for tag in Self.tags { outputs += try Self.feed(&adapter, tag) }
        let descriptions = Self.descriptions(outputs)
        #expect(descriptions.count == 1)
        #expect(descriptions.first?.video?.width == 320 && descriptions.first?.video?.height == 240)
        #expect(descriptions.first?.audio?.sampleRate == 44_100)
        guard case .description = outputs.first else {
            Issue.record("description must come first")
            return
        }
        let video = Self.frames(outputs).filter { $0.kind == .video }
        #expect(video.count == 25)
        #expect(video.first?.isKeyframe == true)
        #expect(video.filter(\.isKeyframe).count == 3)
        #expect(Self.frames(outputs).filter { $0.kind == .audio }.allSatisfy { $0.isKeyframe })
        #expect(adapter.framesDroppedBeforeSequenceHeader == 0)
    }

    @Test func framesBeforeTheirSequenceHeaderAreDroppedAndCounted() throws {
        var adapter = RTMPToStream()
        let coded = Self.tags.filter { $0.kind == .video && $0.body.count > 1 && $0.body[1] == 1 }.prefix(3)
        var outputs: [RTMPToStream.Output] = []
        for tag in coded { outputs += try Self.feed(&adapter, tag) }
        #expect(outputs.isEmpty)
        #expect(adapter.framesDroppedBeforeSequenceHeader == 3)
    }

    @Test func audioOnlyMetadataAnnouncesAtTheAudioHeader() throws {
        var adapter = RTMPToStream()
        _ = adapter.update(metadata: StreamMetadata(hasVideo: false, hasAudio: true))
        let header = try #require(Self.tags.first { $0.kind == .audio })
        let d = Self.descriptions(try Self.feed(&adapter, header))
        #expect(d.count == 1 && d.first?.video == nil && d.first?.audio != nil)
    }

    @Test func changedSequenceHeaderAnnouncesANewDescription() throws {
        var adapter = RTMPToStream()
        for tag in Self.tags { _ = try Self.feed(&adapter, tag) }
        let asc = AudioSpecificConfig(objectType: 2, sampleRate: 48_000, channels: 1).serialize()
        let outputs = try adapter.audio(
            timestamp: 2000,
            body: FLVAudioTag.sequenceHeader(audioSpecificConfig: asc).serialize(),
            stamps: HopStamps()
        )
        #expect(Self.descriptions(outputs).first?.audio?.sampleRate == 48_000)
    }

    @Test func twoByteNALLengthsAreConvertedToFour() throws {
        var adapter = RTMPToStream()
        let headerTag = try #require(Self.tags.first { $0.kind == .video })
        guard case .sequenceHeader(let config) = try FLVVideoTag.parse(headerTag.body) else {
            Issue.record("no avcC")
            return
        }
        var record = try AVCDecoderConfigurationRecord(parsing: config)
        record.nalUnitLengthSize = 2
        _ = try adapter.video(
            timestamp: 0,
            body: FLVVideoTag.sequenceHeader(decoderConfiguration: record.serialize()).serialize(),
            stamps: HopStamps()
        )
        let keyTag = try #require(Self.tags.first { $0.kind == .video && $0.body[1] == 1 })
        guard case .nalUnits(let key, let cts, let four) = try FLVVideoTag.parse(keyTag.body) else { return }
        let two = try H264.convertLengthPrefix(four, from: 4, to: 2)
        let body = FLVVideoTag.nalUnits(isKeyframe: key, compositionTime: cts, data: two).serialize()
        let frame = try #require(Self.frames(try adapter.video(timestamp: 0, body: body, stamps: HopStamps())).first)
        #expect(frame.data == four)
        #expect(frame.isKeyframe)
    }

    @Test func malformedBodiesAreTypedErrors() {
        var adapter = RTMPToStream()
        #expect(throws: RTMPIngestError.flv(.unsupportedVideoCodec(2))) {
            try adapter.video(timestamp: 0, body: [0x12, 0, 0, 0, 0], stamps: HopStamps())
        }
        #expect(throws: RTMPIngestError.self) {
            try adapter.video(timestamp: 0, body: [0x17, 0, 0, 0, 0, 1, 2], stamps: HopStamps())
        }
    }
}
