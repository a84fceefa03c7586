import CodecFormats

/// Brings AV1 from libav's shapes to Sluice's (AV1-ISOBMFF §2.3, §2.4): SVT-AV1's global header is the bare sequence
/// header OBU and its packets are temporal units with a delimiter; the `av01` sample entry wants av1C and bare OBUs.
enum AV1Packaging {
    /// The AV1CodecConfigurationRecord from codec extradata, which is either one already or the sequence header OBU.
    static func codecConfiguration(fromExtradata extradata: [UInt8]) throws(FFmpegError) -> [UInt8] {
        guard !extradata.isEmpty else {
            throw FFmpegError(message: "AV1 stream has no sequence header in its extradata", context: "av1C")
        }
        do {
            // av1C begins with marker 1 + version 1; an OBU header's forbidden bit is 0.
            if extradata[0] == 0x81 {
                _ = try AV1CodecConfigurationRecord(parsing: extradata).sequenceHeader()
                return extradata
            }
            return try AV1CodecConfigurationRecord.serialize(configOBUs: extradata)
        } catch {
            throw FFmpegError(message: "invalid AV1 extradata: \(error)", context: "av1C")
        }
    }

    /// A temporal unit as a sample: its OBUs without the temporal delimiter (kept whole if it does not walk).
    static func sample(fromTemporalUnit bytes: [UInt8]) -> [UInt8] {
        (try? AV1OBU.removingTemporalDelimiters(bytes)) ?? bytes
    }
}
