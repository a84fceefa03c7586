import CodecFormats

/// Brings HEVC from libav's shapes to Sluice's (ISO/IEC 14496-15 §8.3.3): libx265's global header is Annex B
/// VPS/SPS/PPS, the `hvc1` sample entry wants them in an hvcC record.
enum HEVCPackaging {
    /// The HEVCDecoderConfigurationRecord from codec extradata, which is either one already or Annex B parameter sets.
    static func decoderConfiguration(fromExtradata extradata: [UInt8]) throws(FFmpegError) -> [UInt8] {
        guard !extradata.isEmpty else {
            throw FFmpegError(message: "HEVC stream has no VPS/SPS/PPS in its extradata", context: "hvcC")
        }
        do {
            guard H264Packaging.isAnnexB(extradata) else {
                _ = try HEVCDecoderConfigurationRecord(parsing: extradata)
                return extradata
            }
            var sets: [UInt8: [[UInt8]]] = [:]
            for nal in H264.nalUnits(annexB: extradata) where nal.count > 2 {
                sets[HEVC.nalType(nal), default: []].append(Array(nal))
            }
            return try HEVCDecoderConfigurationRecord.serialize(
                vps: sets[HEVCDecoderConfigurationRecord.vpsType] ?? [],
                sps: sets[HEVCDecoderConfigurationRecord.spsType] ?? [],
                pps: sets[HEVCDecoderConfigurationRecord.ppsType] ?? []
            )
        } catch {
            throw FFmpegError(message: "invalid HEVC extradata: \(error)", context: "hvcC")
        }
    }
}
