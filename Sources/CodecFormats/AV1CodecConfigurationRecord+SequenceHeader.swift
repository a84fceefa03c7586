/// AV1-ISOBMFF §2.3.3: an `av1C` record built from an encoder's global header (the sequence header OBU).
extension AV1CodecConfigurationRecord {
    /// The record for the sequence header OBU in `obus` (low-overhead format), no initial presentation delay; the
    /// sequence header is the record's only config OBU, as FFmpeg's muxer writes it.
    public static func serialize(configOBUs obus: [UInt8]) throws(CodecFormatError) -> [UInt8] {
        guard let sequence = try AV1OBU.split(obus).first(where: { $0.type == AV1OBU.sequenceHeader }) else {
            throw .missingSPS
        }
        let header = try AV1SequenceHeader(parsing: sequence.payload)
        guard let c = header.colorConfig else { throw .truncated(what: "sequence header color_config") }
        var out: [UInt8] = [0x81, header.profile << 5 | header.levelIndex & 0x1F]
        let flags: [(Bool, UInt8)] = [
            (header.highTier, 0x80), (c.highBitDepth, 0x40), (c.twelveBit, 0x20), (c.monochrome, 0x10),
            (c.subsamplingX, 0x08), (c.subsamplingY, 0x04),
        ]
        out.append(flags.reduce(c.chromaSamplePosition & 0x03) { $0 | ($1.0 ? $1.1 : 0) })
        out.append(0)  // reserved, initial_presentation_delay_present 0.
        out += AV1OBU.serialize(type: AV1OBU.sequenceHeader, payload: sequence.payload)
        return out
    }
}
