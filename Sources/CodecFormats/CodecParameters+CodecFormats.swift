import MediaCore

extension VideoParameters {
    /// Builds parameters from an avcC record: width/height/codecString/frameRate from its first SPS; the stored
    /// decoderConfiguration is re-serialized with nalUnitLengthSize 4. An explicit `frameRate` wins over the VUI.
    public init(avcDecoderConfiguration bytes: [UInt8], frameRate: Double? = nil) throws(CodecFormatError) {
        var record = try AVCDecoderConfigurationRecord(parsing: bytes)
        guard let first = record.sequenceParameterSets.first else { throw .missingSPS }
        let sps = try H264SPS(parsing: first)
        record.nalUnitLengthSize = 4
        self.init(
            codec: .h264,
            decoderConfiguration: record.serialize(),
            width: sps.width,
            height: sps.height,
            codecString: sps.codecString,
            frameRate: frameRate ?? sps.frameRate
        )
    }
}

extension AudioParameters {
    /// Builds AAC parameters from an AudioSpecificConfig (1024 samples per frame), keeping the bytes as given.
    public init(audioSpecificConfig bytes: [UInt8]) throws(CodecFormatError) {
        let config = try AudioSpecificConfig(parsing: bytes)
        self.init(
            codec: .aac,
            decoderConfiguration: bytes,
            sampleRate: config.sampleRate,
            channels: config.channelCount,
            samplesPerFrame: 1024,
            codecString: config.codecString
        )
    }
}
