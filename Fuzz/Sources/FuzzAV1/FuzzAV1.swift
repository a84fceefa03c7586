import CodecFormats
import FuzzSupport
import MediaCore

/// AV1 av1C (parsed and built), sequence header OBU, OBU framing and the capture clock metadata OBU: any bytes parse or throw; split
/// OBUs stay inside the input.
@main enum FuzzAV1Entry {
    static func main() { FuzzDriver.run(fuzzAV1) }
}

/// One libFuzzer input.
func fuzzAV1(_ bytes: [UInt8]) {
    if let obus = try? AV1OBU.split(bytes) {
        precondition(obus.allSatisfy { $0.payload.endIndex <= bytes.count }, "OBU payload past the input")
    }
    _ = AV1OBU.containsKeyFrame(temporalUnit: bytes)
    _ = try? AV1SequenceHeader(parsing: bytes)
    // An av1C built from an encoder's sequence header OBU parses back with the same header; delimiters drop alone.
    if let built = try? AV1CodecConfigurationRecord.serialize(configOBUs: bytes) {
        let record = try? AV1CodecConfigurationRecord(parsing: built)
        precondition(record?.codecString.hasPrefix("av01.") == true, "built av1C does not parse")
        precondition((try? record?.sequenceHeader()) != nil, "built av1C lost its sequence header")
    }
    if let bare = try? AV1OBU.removingTemporalDelimiters(bytes) {
        precondition(bare.count <= bytes.count, "removing delimiters grew the unit")
        let obus = try? AV1OBU.split(bare)
        precondition(obus != nil, "delimiters removed from a unit that does not split")
        precondition(obus?.contains { $0.type == AV1OBU.temporalDelimiter } == false, "delimiter left")
    }
    // The capture clock metadata OBU: reading never traps; stamping a walkable unit leaves one readable clock.
    let time = WallTime(nanosecondsSince1970: 1_763_000_000_123_456_000)
    _ = CaptureTimeOBU.captureTime(inTemporalUnit: bytes)
    if let stamped = try? CaptureTimeOBU.inserting(capture: time, intoTemporalUnit: bytes) {
        precondition(
            CaptureTimeOBU.captureTime(inTemporalUnit: stamped) == time,
            "stamped temporal unit lost its clock"
        )
    }
    if let record = try? AV1CodecConfigurationRecord(parsing: bytes) {
        precondition(record.codecString.hasPrefix("av01."), "CODECS string without its sample entry")
        _ = try? VideoParameters(av1CodecConfiguration: bytes)
    }
}
