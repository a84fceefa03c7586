import MediaCore

extension VideoParameters {
    /// Builds HEVC parameters from an hvcC record: size from its first SPS, CODECS from its profile_tier_level;
    /// the stored record is rewritten with 4-byte NAL lengths, the only framing Sluice's frames use.
    public init(hevcDecoderConfiguration bytes: [UInt8], frameRate: Double? = nil) throws(CodecFormatError) {
        let record = try HEVCDecoderConfigurationRecord(parsing: bytes)
        guard let first = record.nalUnits(ofType: HEVCDecoderConfigurationRecord.spsType).first else {
            throw .missingSPS
        }
        let sps = try HEVCSPS(parsing: first)
        self.init(
            codec: .hevc,
            decoderConfiguration: HEVCDecoderConfigurationRecord.withLengthSize(bytes, 4),
            width: sps.width,
            height: sps.height,
            codecString: record.codecString,
            frameRate: frameRate
        )
    }

    /// Builds AV1 parameters from an av1C record: size (and frame rate if timed) from its sequence header OBU.
    public init(av1CodecConfiguration bytes: [UInt8], frameRate: Double? = nil) throws(CodecFormatError) {
        let record = try AV1CodecConfigurationRecord(parsing: bytes)
        let header = try record.sequenceHeader()
        self.init(
            codec: .av1,
            decoderConfiguration: bytes,
            width: header.width,
            height: header.height,
            codecString: record.codecString,
            frameRate: frameRate ?? header.frameRate
        )
    }
}
