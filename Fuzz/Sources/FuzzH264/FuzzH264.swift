import CodecFormats
import FuzzSupport
import MediaCore

/// H.264 SPS, avcC and NAL framing: any bytes parse or throw; a parsed avcC serializes back to itself.
@main enum FuzzH264Entry {
    static func main() { FuzzDriver.run(fuzzH264) }
}

/// One libFuzzer input.
func fuzzH264(_ bytes: [UInt8]) {
    if let sps = try? H264SPS(parsing: bytes) {
        precondition(sps.width >= 0 && sps.height >= 0, "negative picture size from SPS")
        _ = sps.codecString
    }
    if let record = try? AVCDecoderConfigurationRecord(parsing: bytes) {
        let again = try? AVCDecoderConfigurationRecord(parsing: record.serialize())
        precondition(again == record, "avcC round trip changed the record")
        _ = try? VideoParameters(avcDecoderConfiguration: bytes)
    }
    for lengthSize in 1...4 {
        if let nals = try? H264.nalUnits(avcc: bytes, lengthSize: lengthSize) {
            let annexB = try? H264.annexB(fromAVCC: bytes, lengthSize: lengthSize)
            precondition(annexB != nil, "annexB conversion refused what nalUnits accepted")
            _ = nals.map(H264.nalType)
            _ = H264.containsIDR(avcc: bytes, lengthSize: lengthSize)
        }
    }
    let units = H264.nalUnits(annexB: bytes)
    _ = H264.avcc(fromAnnexB: bytes)
    precondition(units.allSatisfy { $0.count <= bytes.count }, "NAL unit longer than its input")
}
