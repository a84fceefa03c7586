import CodecFormats
import FuzzSupport
import MediaCore

/// HEVC hvcC, SPS, IRAP detection and the capture clock SEI: any bytes parse or throw; a parsed record names a
/// CODECS string; an hvcC built from a parsed SPS reads back.
@main enum FuzzHEVCEntry {
    static func main() { FuzzDriver.run(fuzzHEVC) }
}

/// One libFuzzer input.
func fuzzHEVC(_ bytes: [UInt8]) {
    if let record = try? HEVCDecoderConfigurationRecord(parsing: bytes) {
        precondition(record.codecString.hasPrefix("hvc1."), "CODECS string without its sample entry")
        if let params = try? VideoParameters(hevcDecoderConfiguration: bytes) {
            precondition(params.width > 0 && params.height > 0, "non-positive picture size from hvcC")
        }
    }
    if let sps = try? HEVCSPS(parsing: bytes) {
        precondition(sps.width > 0 && sps.height > 0, "non-positive picture size from SPS")
        // An hvcC built around any SPS that parses reads back with that SPS's profile, tier and level.
        if let built = try? HEVCDecoderConfigurationRecord.serialize(vps: [], sps: [bytes], pps: []) {
            let back = try? HEVCDecoderConfigurationRecord(parsing: built)
            precondition(back?.profileTierLevel == sps.profileTierLevel, "built hvcC lost the profile_tier_level")
            let spsBack = back?.nalUnits(ofType: HEVCDecoderConfigurationRecord.spsType)
            precondition(spsBack == [bytes], "built hvcC lost the SPS")
        }
    }
    for lengthSize in [1, 2, 4] { _ = HEVC.containsIRAP(lengthPrefixed: bytes, lengthSize: lengthSize) }
    // The capture clock SEI: reading never traps, and stamping a walkable access unit leaves one readable clock.
    _ = CaptureTimeSEI.captureTime(inHEVCNALUnit: bytes)
    let time = WallTime(nanosecondsSince1970: 1_763_000_000_123_456_000)
    if let stamped = try? CaptureTimeSEI.inserting(capture: time, intoHEVC: bytes) {
        precondition(CaptureTimeSEI.captureTime(inHEVC: stamped) == time, "stamped HEVC access unit lost its clock")
    }
}
