import CodecFormats
import MediaCore
import TestSupport
import Testing

/// Two encoders' parameter sets in one avcC (the fast-start bridge's init section).
@Suite struct AVCDecoderConfigurationMergingTests {
    /// libx264 320x240 with `-x264-params sps-id=3` (SPS and PPS id 3), Annex B output of the ffmpeg CLI.
    static let sps3 = hex("6764000d22cb40a0fd8088000003000800000301e478a155")
    static let pps3 = hex("68212f0fcb")
    static let source = AVCDecoderConfigurationRecord(sps: AVCCCase.sps720, pps: AVCCCase.pps720)
    static let bridge = AVCDecoderConfigurationRecord(sps: sps3, pps: pps3)

    @Test func readsTheIDsOfEverySetAndTheLowestFreeOne() throws {
        let ids = try #require(Self.source.parameterSetIDs)
        #expect(ids.sps == [0] && ids.pps == [0])
        #expect(Self.source.freeParameterSetID == 1)
        let other = try #require(Self.bridge.parameterSetIDs)
        #expect(other.sps == [3] && other.pps == [3])
        #expect(Self.bridge.freeParameterSetID == 0)
    }

    @Test func mergingKeepsTheFirstRecordsProfileAndAppendsTheOthersSets() throws {
        let merged = try Self.source.merging(Self.bridge)
        #expect(merged.profileIndication == 0x64 && merged.levelIndication == 0x1F)
        #expect(merged.sequenceParameterSets == [AVCCCase.sps720, Self.sps3])
        #expect(merged.pictureParameterSets == [AVCCCase.pps720, Self.pps3])
        // What a player reads back: both sets, and the source's size and codec string.
        let parsed = try AVCDecoderConfigurationRecord(parsing: merged.serialize())
        #expect(parsed == merged)
        let video = try VideoParameters(avcDecoderConfiguration: merged.serialize())
        #expect(video.width == 1280 && video.height == 720 && video.codecString == "avc1.64001f")
    }

    @Test func anIDInBothRecordsIsRefusedWithIt() {
        #expect(throws: CodecFormatError.invalidValue(field: "seq_parameter_set_id (in both records)", value: 0)) {
            try Self.source.merging(Self.source)
        }
    }

    @Test func aPPSThatDoesNotParseIsRefused() {
        var broken = Self.bridge
        broken.pictureParameterSets = [[0x68]]
        #expect(broken.parameterSetIDs == nil && broken.freeParameterSetID == nil)
        #expect(throws: CodecFormatError.self) { try Self.source.merging(broken) }
    }

    /// Property: the free id is never one of the record's, and the merge of a record with any set numbered by it keeps
    /// every id apart (PPS ids are ue(v) codes of any length: written here by hand for 0...31).
    @Test(arguments: 0..<32)
    func aFreeIDNeverClashes(taken: Int) throws {
        var record = Self.source
        record.pictureParameterSets = [Self.pps(id: taken)]
        let free = try #require(record.freeParameterSetID)
        #expect(free != taken && free != 0)
        let other = AVCDecoderConfigurationRecord(sps: AVCCCase.sps720, pps: Self.pps(id: free))
        #expect(throws: CodecFormatError.self) { try record.merging(other) }  // both SPS are id 0
        var renumbered = other
        renumbered.sequenceParameterSets = [Self.sps3]
        let merged = try record.merging(renumbered)
        #expect(merged.parameterSetIDs?.pps == [taken, free])
    }

    /// A PPS NAL whose first field is `id`: ue(v) (§9.1: as many zeros as `id + 1` has bits after its first, then
    /// `id + 1`), the stop bit, zeros to a byte.
    static func pps(id: Int) -> [UInt8] {
        let value = UInt64(id + 1)
        let bits = 2 * (64 - value.leadingZeroBitCount)
        let padded = (bits + 7) / 8 * 8
        let word = (value << 1 | 1) << UInt64(padded - bits)
        return [0x68] + (0..<padded / 8).reversed().map { UInt8(truncatingIfNeeded: word >> UInt64($0 * 8)) }
    }
}
