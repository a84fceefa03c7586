import CodecFormats
import MediaCore
import TestSupport
import Testing

/// AV1 ISOBMFF binding §2.3 av1C and AV1 §5.5 sequence header OBU from real FFmpeg 9 + libsvtav1 E-RTMP
/// SequenceStarts; CODECS strings checked against ffprobe's profile/level/pix_fmt of the same stream in MP4.
struct AV1ConfigurationTests {
    /// A real record and what it must yield.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var av1C: [UInt8]
        var codecString: String
        var width: Int
        var height: Int
        var testDescription: String { name }
    }

    static let all: [Case] = [
        // ffprobe: profile=Main level=0 yuv420p, 320x240.
        Case(
            name: "SVT-AV1 8-bit 320x240",
            av1C: hex("81000c000a0b0200000521e7fde017c002"),
            codecString: "av01.0.00M.08",
            width: 320,
            height: 240
        ),
        // ffprobe: profile=Main level=5 yuv420p10le, 1280x720.
        Case(
            name: "SVT-AV1 10-bit 1280x720",
            av1C: hex("81054c000a0c0200002d2a67fd9e017c2020"),
            codecString: "av01.0.05M.10",
            width: 1280,
            height: 720
        ),
    ]

    @Test(arguments: all)
    func recordYieldsCodecStringAndSize(_ c: Case) throws {
        let record = try AV1CodecConfigurationRecord(parsing: c.av1C)
        #expect(record.codecString == c.codecString)
        let header = try record.sequenceHeader()
        #expect(header.profile == record.profile && header.levelIndex == record.levelIndex)
        #expect(header.width == c.width && header.height == c.height)
        let params = try VideoParameters(av1CodecConfiguration: c.av1C)
        #expect(params.codec == .av1 && params.codecString == c.codecString && params.width == c.width)
    }

    @Test(arguments: all)
    func recordRebuiltFromItsSequenceHeaderIsFFmpegsByteForByte(_ c: Case) throws {
        let record = try AV1CodecConfigurationRecord(parsing: c.av1C)
        let color = try #require(try record.sequenceHeader().colorConfig)
        #expect(color.highBitDepth == record.highBitDepth && color.monochrome == record.monochrome)
        #expect(color.subsamplingX && color.subsamplingY)
        #expect(try AV1CodecConfigurationRecord.serialize(configOBUs: record.configOBUs) == c.av1C)
    }

    @Test func recordNeedsASequenceHeaderWithItsColorConfig() throws {
        #expect(throws: CodecFormatError.missingSPS) {
            try AV1CodecConfigurationRecord.serialize(configOBUs: [0x12, 0x00])
        }
        // The 8-bit record's sequence header cut after the frame size, before color_config.
        let cut = AV1OBU.serialize(
            type: AV1OBU.sequenceHeader,
            payload: [0x00, 0x00, 0x00, 0x05, 0x21, 0xE7, 0xFD, 0xE0]
        )
        #expect(throws: CodecFormatError.truncated(what: "sequence header color_config")) {
            try AV1CodecConfigurationRecord.serialize(configOBUs: cut)
        }
    }

    @Test func serializedOBUsSplitBackAndDelimitersAloneAreRemoved() throws {
        var random = SeededRandom(seed: 20)
        for _ in 0..<200 {
            var unit: [UInt8] = [0x12, 0x00]
            var kept: [[UInt8]] = []
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let type = [UInt8(1), 3, 4, 5, 6, 15].randomElement(using: &random)!
                let payload = (0..<Int.random(in: 0...300, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
                unit += AV1OBU.serialize(type: type, payload: payload[...])
                kept.append([type] + payload)
            }
            let bare = try AV1OBU.removingTemporalDelimiters(unit)
            #expect(try AV1OBU.split(bare).map { [$0.type] + $0.payload } == kept)
            #expect(bare.count == unit.count - 2)
        }
        #expect(throws: CodecFormatError.self) { try AV1OBU.removingTemporalDelimiters([0x32, 0x05, 0x00]) }
        // FuzzAV1's find: an av1C (first byte 0x81, the OBU forbidden bit) is refused, as split refuses it.
        #expect(throws: CodecFormatError.invalidValue(field: "obu_forbidden_bit", value: 1)) {
            try AV1OBU.removingTemporalDelimiters(hex("81000c000a0b0200000521e7fde017c002"))
        }
        #expect(throws: CodecFormatError.truncated(what: "obu_extension_header")) {
            try AV1OBU.removingTemporalDelimiters([0x0C])
        }
    }

    @Test func codecStringCarriesHighTierAndTwelveBits() throws {
        let record = try AV1CodecConfigurationRecord(parsing: [0x81, 0x4D, 0xE0, 0])
        #expect(record.codecString == "av01.2.13H.12")
    }

    @Test func keyFramesAreFoundFromTheFrameHeader() {
        // Temporal delimiter (0x12 0x00), then an OBU_FRAME (0x32) whose first payload bit pattern says
        // show_existing_frame 0, frame_type KEY (0x10) or INTER (0x30 -> frame_type 1).
        let key: [UInt8] = [0x12, 0x00, 0x32, 0x02, 0x10, 0x00]
        let inter: [UInt8] = [0x12, 0x00, 0x32, 0x02, 0x30, 0x00]
        let shown: [UInt8] = [0x1A, 0x01, 0x80]  // OBU_FRAME_HEADER with show_existing_frame 1.
        #expect(AV1OBU.containsKeyFrame(temporalUnit: key))
        #expect(!AV1OBU.containsKeyFrame(temporalUnit: inter))
        #expect(!AV1OBU.containsKeyFrame(temporalUnit: shown))
        #expect(!AV1OBU.containsKeyFrame(temporalUnit: [0x32, 0x09, 0x10]))
    }

    @Test func obusSplitWithLEB128Sizes() throws {
        // A 130-byte padding OBU (type 15: 0x7A) has the two-byte size 0x82 0x01.
        let padding: [UInt8] = [0x7A, 0x82, 0x01] + Array(repeating: 0, count: 130)
        let obus = try AV1OBU.split([0x12, 0x00] + padding)
        #expect(obus.map(\.type) == [2, 15])
        #expect(obus.map(\.payload.count) == [0, 130])
        #expect(throws: CodecFormatError.self) { try AV1OBU.split([0x7A, 0x82]) }
        #expect(throws: CodecFormatError.invalidValue(field: "obu_forbidden_bit", value: 1)) {
            try AV1OBU.split([0x80])
        }
    }

    @Test func malformedRecordsAreTypedErrors() {
        #expect(throws: CodecFormatError.unsupportedVersion(0x01)) {
            try AV1CodecConfigurationRecord(parsing: [1, 0, 0, 0])
        }
        #expect(throws: CodecFormatError.truncated(what: "AV1CodecConfigurationRecord")) {
            try AV1CodecConfigurationRecord(parsing: [0x81])
        }
        #expect(throws: CodecFormatError.missingSPS) {
            try AV1CodecConfigurationRecord(parsing: [0x81, 0, 0x0C, 0]).sequenceHeader()
        }
    }
}
