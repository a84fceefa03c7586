import CodecFormats
import MediaCore
import TestSupport
import Testing

/// ISO/IEC 14496-15 §8.3.3.1.2: an hvcC built from VPS/SPS/PPS (as MPEG-TS carries them) matches FFmpeg's own.
struct HEVCRecordBuildingTests {
    /// FFmpeg's records (HEVCConfigurationTests) rebuilt from their own parameter sets: byte for byte, except that
    /// ours marks each array complete (the `hvc1` rule, as FFmpeg's MP4 muxer writes; its FLV muxer does not).
    @Test(arguments: HEVCConfigurationTests.all)
    func rebuildsFFmpegsRecordFromItsParameterSets(_ c: HEVCConfigurationTests.Case) throws {
        let record = try HEVCDecoderConfigurationRecord(parsing: c.hvcC)
        let built = try HEVCDecoderConfigurationRecord.serialize(
            vps: record.nalUnits(ofType: HEVCDecoderConfigurationRecord.vpsType),
            sps: record.nalUnits(ofType: HEVCDecoderConfigurationRecord.spsType),
            pps: record.nalUnits(ofType: HEVCDecoderConfigurationRecord.ppsType)
        )
        var expected = c.hvcC
        var offset = 23
        for array in record.arrays {
            expected[offset] |= 0x80
            offset += 3 + array.nalUnits.reduce(0) { $0 + 2 + $1.count }
        }
        #expect(built == expected)
        let reread = try HEVCDecoderConfigurationRecord(parsing: built)
        #expect(reread.arrays.allSatisfy { $0.complete })
        #expect(try VideoParameters(hevcDecoderConfiguration: built).codecString == c.codecString)
    }

    @Test func noSPSIsRefused() {
        #expect(throws: CodecFormatError.missingSPS) {
            try HEVCDecoderConfigurationRecord.serialize(vps: [[0x40, 0x01]], sps: [], pps: [[0x44, 0x01]])
        }
    }
}
