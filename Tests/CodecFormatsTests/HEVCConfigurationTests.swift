import CodecFormats
import MediaCore
import TestSupport
import Testing

/// ISO/IEC 14496-15 §8.3.3 hvcC and H.265 §7.3.2.2 SPS from real FFmpeg 9 + libx265 E-RTMP SequenceStarts (the x265
/// info SEI array dropped); CODECS strings checked against ffprobe's profile/level of the same stream in MP4.
struct HEVCConfigurationTests {
    /// A real record and what it must yield.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var hvcC: [UInt8]
        var codecString: String
        var width: Int
        var height: Int
        var testDescription: String { name }
    }

    static let all: [Case] = [
        // ffprobe: profile=Main level=60 (2.0), 320x240.
        Case(
            name: "x265 Main 320x240",
            hvcC: hex(
                """
                0101600000009000000000003cf000fcfdf8f800000f03200001001840010c01ffff01600000030090000003000003003c95900921\
                0001002a42010101600000030090000003000003003ca00a080f16595924932bc05a02000003000200000300321022000100074401\
                c172b46240
                """
            ),
            codecString: "hvc1.1.6.L60.90",
            width: 320,
            height: 240
        ),
        // ffprobe: profile=Main 10 level=93 (3.1), 1280x720 (coded 1280x720 after the conformance window).
        Case(
            name: "x265 Main 10 1280x720",
            hvcC: hex(
                """
                0102200000009000000000005df000fcfdfafa00000f03200001001840010c01ffff02200000030090000003000003005d95980921\
                0001002b42010102200000030090000003000003005da00280802d1365959a4932bc05a020000003002000000303c1220001000744\
                01c172b46240
                """
            ),
            codecString: "hvc1.2.4.L93.90",
            width: 1280,
            height: 720
        ),
    ]

    @Test(arguments: all)
    func recordYieldsCodecStringAndSize(_ c: Case) throws {
        let record = try HEVCDecoderConfigurationRecord(parsing: c.hvcC)
        #expect(record.codecString == c.codecString)
        #expect(record.nalUnitLengthSize == 4)
        #expect(record.arrays.map(\.nalUnitType) == [32, 33, 34])
        let sps = try HEVCSPS(
            parsing: try #require(record.nalUnits(ofType: HEVCDecoderConfigurationRecord.spsType).first)
        )
        #expect(sps.profileTierLevel == record.profileTierLevel)
        #expect(sps.width == c.width && sps.height == c.height)
        let params = try VideoParameters(hevcDecoderConfiguration: c.hvcC, frameRate: 25)
        #expect(params.codec == .hevc && params.codecString == c.codecString)
        #expect(params.width == c.width && params.height == c.height && params.frameRate == 25)
    }

    @Test func codecStringNamesSpaceTierAndDropsTrailingZeroConstraints() {
        let ptl = HEVCProfileTierLevel(
            profileSpace: 1,
            highTier: true,
            profileIdc: 4,
            compatibilityFlags: 0x0800_0000,
            constraintFlags: 0x9800_0001_0000,
            levelIdc: 153
        )
        #expect(ptl.codecString() == "hvc1.A4.10.H153.98.0.0.1")
        var plain = ptl
        plain.constraintFlags = 0
        plain.profileSpace = 0
        #expect(plain.codecString() == "hvc1.4.10.H153")
    }

    @Test func irapPicturesStartDecodingOthersDoNot() {
        // NAL headers: 0x26 0x01 is IDR_W_RADL (19), 0x2A 0x01 CRA (21), 0x02 0x01 TRAIL_R (1), 0x4E 0x01 prefix SEI.
        let idr: [UInt8] = [0, 0, 0, 3, 0x4E, 0x01, 5] + [0, 0, 0, 3, 0x26, 0x01, 0xAF]
        let cra: [UInt8] = [0, 0, 0, 3, 0x2A, 0x01, 0xAF]
        let trail: [UInt8] = [0, 0, 0, 3, 0x02, 0x01, 0xAF]
        #expect(HEVC.containsIRAP(lengthPrefixed: idr))
        #expect(HEVC.containsIRAP(lengthPrefixed: cra))
        #expect(!HEVC.containsIRAP(lengthPrefixed: trail))
        #expect(!HEVC.containsIRAP(lengthPrefixed: [0, 0, 0, 9, 0x26]))
    }

    @Test func lengthSizeIsRewrittenInPlace() throws {
        let bytes = Self.all[0].hvcC
        let two = HEVCDecoderConfigurationRecord.withLengthSize(bytes, 2)
        #expect(try HEVCDecoderConfigurationRecord(parsing: two).nalUnitLengthSize == 2)
        #expect(Array(two[..<21]) == Array(bytes[..<21]) && Array(two[22...]) == Array(bytes[22...]))
    }

    @Test func malformedRecordsAreTypedErrors() {
        #expect(throws: CodecFormatError.unsupportedVersion(0)) {
            try HEVCDecoderConfigurationRecord(parsing: [0] + Array(repeating: 0, count: 22))
        }
        #expect(throws: CodecFormatError.truncated(what: "HEVCDecoderConfigurationRecord")) {
            try HEVCDecoderConfigurationRecord(parsing: Array(Self.all[0].hvcC[..<40]))
        }
        #expect(throws: CodecFormatError.unexpectedNALType(expected: 33, found: 32)) {
            try HEVCSPS(parsing: [0x40, 0x01, 0x0C])
        }
    }
}
