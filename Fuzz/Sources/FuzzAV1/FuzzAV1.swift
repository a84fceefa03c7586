import CodecFormats
import FuzzSupport
import MediaCore

/// AV1 av1C, sequence header OBU and OBU framing: any bytes parse or throw; split OBUs stay inside the input.
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
    if let record = try? AV1CodecConfigurationRecord(parsing: bytes) {
        precondition(record.codecString.hasPrefix("av01."), "CODECS string without its sample entry")
        _ = try? VideoParameters(av1CodecConfiguration: bytes)
    }
}
