import MediaCore
import RTMPWire
import Testing

@testable import RTMPPublish

/// How frames and descriptions become the FLV tags librtmp writes.
@Suite struct FLVTagMappingTests {
    /// One row: a video frame's times and the FLV timestamp / composition time it must carry.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let dts: Int64
        let offset: Int64
        let scale: Int32
        let timestamp: UInt32
        let cts: Int32
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "zero", dts: 0, offset: 0, scale: 90_000, timestamp: 0, cts: 0),
        Case(name: "one 30 fps frame", dts: 3_000, offset: 0, scale: 90_000, timestamp: 33, cts: 0),
        Case(name: "B-frame offset", dts: 3_000, offset: 6_000, scale: 90_000, timestamp: 33, cts: 67),
        Case(name: "rounding keeps pts exact", dts: 6_000, offset: 3_000, scale: 90_000, timestamp: 67, cts: 33),
        Case(name: "millisecond timescale", dts: 1_234, offset: 40, scale: 1_000, timestamp: 1_234, cts: 40),
        Case(name: "past 24 bits", dts: 16_777_216, offset: 0, scale: 1_000, timestamp: 16_777_216, cts: 0),
    ]

    @Test(arguments: cases)
    func videoFramesCarryMillisecondTimesAndCompositionTime(_ c: Case) throws {
        let frame = MediaFrame(
            kind: .video,
            dts: MediaTime(value: c.dts, timescale: c.scale),
            compositionOffset: MediaTime(value: c.offset, timescale: c.scale),
            isKeyframe: true,
            data: [0, 0, 0, 1, 0x65]
        )
        let tag = FLVTagMapping.tag(for: frame)
        #expect(tag.kind == .video)
        #expect(tag.timestamp == c.timestamp)
        #expect(
            try FLVVideoTag.parse(tag.body) == .nalUnits(isKeyframe: true, compositionTime: c.cts, data: frame.data)
        )
    }

    @Test func audioFramesBecomeRawAACTags() throws {
        let frame = MediaFrame(
            kind: .audio,
            dts: MediaTime(value: 48_000, timescale: 48_000),
            isKeyframe: true,
            data: [1, 2, 3]
        )
        let tag = FLVTagMapping.tag(for: frame)
        #expect(tag.kind == .audio && tag.timestamp == 1_000)
        #expect(try FLVAudioTag.parse(tag.body) == .raw([1, 2, 3]))
    }

    @Test func metadataIsAnOnMetaDataScriptTag() throws {
        let description = StreamDescription(
            video: VideoParameters(
                decoderConfiguration: [1, 0x64, 0, 0x1F],
                width: 1280,
                height: 720,
                codecString: "avc1.64001f",
                frameRate: 30
            ),
            audio: AudioParameters(
                decoderConfiguration: [0x11, 0x90],
                sampleRate: 48_000,
                channels: 2,
                codecString: "mp4a.40.2"
            )
        )
        let tag = FLVTagMapping.metadata(for: description)
        #expect(tag.kind == .script)
        let values = try AMF0Decoder().decodeAll(tag.body)
        #expect(values.first == .string("onMetaData"))
        #expect(values.last?["width"] == .number(1280))
        #expect(values.last?["height"] == .number(720))
        #expect(values.last?["videocodecid"] == .number(7))
        #expect(values.last?["audiocodecid"] == .number(10))
        #expect(values.last?["audiosamplerate"] == .number(48_000))
        let headers = FLVTagMapping.sequenceHeaders(for: description)
        #expect(headers.map { $0.kind } == [.video, .audio])
        #expect(try FLVVideoTag.parse(headers[0].body) == .sequenceHeader(decoderConfiguration: [1, 0x64, 0, 0x1F]))
        #expect(try FLVAudioTag.parse(headers[1].body) == .sequenceHeader(audioSpecificConfig: [0x11, 0x90]))
    }
}

/// HEVC and AV1 go out as E-RTMP v2 ExVideoTags (SequenceStart with the hvcC/av1C, CodedFrames with the composition
/// time for hvc1), and onMetaData names the FourCC as videocodecid; H.264 keeps the classic tags above.
@Suite struct FLVTagMappingEnhancedTests {
    static func description(_ codec: Codec) -> StreamDescription {
        StreamDescription(
            video: VideoParameters(
                codec: codec,
                decoderConfiguration: [1, 2, 3, 4],
                width: 1280,
                height: 720,
                codecString: codec == .hevc ? "hvc1.1.6.L93.90" : "av01.0.05M.08",
                frameRate: 30
            )
        )
    }

    @Test(arguments: [(Codec.hevc, FourCC.hvc1), (Codec.av1, FourCC.av01)])
    func sequenceStartAndMetadataNameTheFourCC(_ codec: Codec, _ fourCC: FourCC) throws {
        let d = Self.description(codec)
        let header = try #require(FLVTagMapping.sequenceHeaders(for: d).first)
        #expect(
            try ExVideoTag.parse(header.body)
                == ExVideoTag(
                    frameType: .keyframe,
                    packetType: .sequenceStart,
                    tracks: [.init(fourCC: fourCC, payload: [1, 2, 3, 4])]
                )
        )
        let values = try AMF0Decoder().decodeAll(FLVTagMapping.metadata(for: d).body)
        #expect(values.last?["videocodecid"] == .number(Double(fourCC.rawValue)))
    }

    @Test(arguments: [(Codec.hevc, FourCC.hvc1, Int32(67)), (Codec.av1, FourCC.av01, Int32(0))])
    func codedFramesCarryKeyframeFlagAndCompositionTime(_ codec: Codec, _ fourCC: FourCC, _ cts: Int32) throws {
        for key in [true, false] {
            let frame = MediaFrame(
                kind: .video,
                dts: MediaTime(value: 90_000, timescale: 90_000),
                compositionOffset: MediaTime(value: codec == .hevc ? 6_000 : 0, timescale: 90_000),
                isKeyframe: key,
                data: [0, 0, 0, 2, 0x26, 0x01]
            )
            let tag = FLVTagMapping.tag(for: frame, codec: codec)
            #expect(tag.timestamp == 1_000)
            let parsed = try ExVideoTag.parse(tag.body)
            #expect(parsed.frameType == (key ? .keyframe : .interframe) && parsed.packetType == .codedFrames)
            #expect(parsed.tracks == [.init(fourCC: fourCC, compositionTime: cts, payload: frame.data)])
        }
    }
}
