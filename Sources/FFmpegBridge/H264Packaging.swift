import CodecFormats

/// Brings H.264 from libav's shapes (Annex B or AVCC with any length size) to Sluice's: avcC + 4-byte AVCC.
enum H264Packaging {
    /// True when `bytes` begin with an Annex B start code.
    static func isAnnexB(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0, 0, 1]) || bytes.starts(with: [0, 0, 0, 1])
    }

    /// True when `bytes` are exactly a run of `lengthSize`-byte length-prefixed NAL units. A length-prefixed packet can
    /// also begin like a start code (a 256–511-byte first NAL has the 4-byte prefix 00 00 01 xx), so the framing a
    /// packet starts with alone cannot tell the two apart.
    static func tilesAsLengthPrefixed(_ bytes: [UInt8], lengthSize: Int) -> Bool {
        guard let units = try? H264.nalUnits(avcc: bytes, lengthSize: lengthSize) else { return false }
        return !units.isEmpty
    }

    /// Whether a packet of a stream whose extradata is length-prefixed was written as Annex B anyway (some muxers do):
    /// only when it starts with a start code and its lengths do not tile it.
    static func packetIsAnnexB(_ bytes: [UInt8], lengthSize: Int) -> Bool {
        isAnnexB(bytes) && !tilesAsLengthPrefixed(bytes, lengthSize: lengthSize)
    }

    /// The AVCDecoderConfigurationRecord from codec extradata, which is either one already or Annex B SPS/PPS.
    static func decoderConfiguration(fromExtradata extradata: [UInt8]) throws(FFmpegError) -> [UInt8] {
        guard !extradata.isEmpty else {
            throw FFmpegError(message: "H.264 stream has no SPS/PPS in its extradata", context: "avcC")
        }
        if !isAnnexB(extradata) {
            do {
                _ = try AVCDecoderConfigurationRecord(parsing: extradata)
            } catch {
                throw FFmpegError(message: "invalid avcC extradata: \(error)", context: "avcC")
            }
            return extradata
        }
        var sps: [UInt8]?
        var pps: [UInt8]?
        for nal in H264.nalUnits(annexB: extradata) {
            guard let first = nal.first else { continue }
            switch first & 0x1F {
            case 7 where sps == nil: sps = Array(nal)
            case 8 where pps == nil: pps = Array(nal)
            default: break
            }
        }
        guard let sps, let pps else {
            throw FFmpegError(message: "Annex B extradata lacks an SPS or PPS", context: "avcC")
        }
        return AVCDecoderConfigurationRecord(sps: sps, pps: pps).serialize()
    }

    /// Annex B access unit to 4-byte length-prefixed NAL units.
    static func avcc(fromAnnexB bytes: [UInt8]) -> [UInt8] { H264.avcc(fromAnnexB: bytes) }

    /// An AVCC access unit with `lengthSize`-byte prefixes rewritten with 4-byte prefixes.
    static func avcc(from bytes: [UInt8], lengthSize: Int) throws(FFmpegError) -> [UInt8] {
        if lengthSize == 4 { return bytes }
        do {
            return try H264.convertLengthPrefix(bytes, from: lengthSize, to: 4)
        } catch {
            throw FFmpegError(message: "malformed AVCC packet: \(error)", context: "H.264 packet")
        }
    }
}
