/// ISO/IEC 13818-7 §6.2 (adts_fixed_header + adts_variable_header): one ADTS frame header.
public struct ADTSHeader: Equatable, Sendable {
    /// The equivalent AudioSpecificConfig (profile + 1 is the object type).
    public var config: AudioSpecificConfig
    /// Header bytes: 7, or 9 when a CRC follows (protection_absent = 0).
    public var headerLength: Int
    /// aac_frame_length: header plus payload.
    public var frameLength: Int

    /// Creates a header for a payload of `payloadLength` bytes without CRC.
    public init(config: AudioSpecificConfig, payloadLength: Int) {
        self.config = config
        headerLength = 7
        frameLength = 7 + payloadLength
    }

    /// Parses the header at the start of `bytes`.
    public init(parsing bytes: ArraySlice<UInt8>) throws(CodecFormatError) {
        guard bytes.count >= 7 else { throw .truncated(what: "ADTS header") }
        let b = Array(bytes.prefix(7)).map(Int.init)
        guard b[0] == 0xFF, b[1] & 0xF0 == 0xF0 else { throw .badADTSSyncword(offset: bytes.startIndex) }
        let protectionAbsent = b[1] & 1 == 1
        let profile = b[2] >> 6
        let rateIndex = (b[2] >> 2) & 0x0F
        guard rateIndex < AudioSpecificConfig.sampleRates.count else { throw .reservedSampleRateIndex(rateIndex) }
        let channels = (b[2] & 1) << 2 | b[3] >> 6
        config = AudioSpecificConfig(
            objectType: profile + 1,
            sampleRate: AudioSpecificConfig.sampleRates[rateIndex],
            channels: 0
        )
        config.channelConfiguration = channels
        headerLength = protectionAbsent ? 7 : 9
        frameLength = (b[3] & 0x03) << 11 | b[4] << 3 | b[5] >> 5
        guard frameLength >= headerLength else { throw .invalidValue(field: "aac_frame_length", value: frameLength) }
    }

    /// The 7-byte header (no CRC, buffer fullness 0x7FF = VBR, one raw data block).
    public func serialize() -> [UInt8] {
        let profile = max(0, min(3, config.objectType - 1))
        let rateIndex = config.sampleRateIndex ?? 4
        let channels = config.channelConfiguration & 0x07
        let length = frameLength & 0x1FFF
        return [
            0xFF, 0xF1,
            UInt8(profile << 6 | rateIndex << 2 | channels >> 2),
            UInt8((channels & 3) << 6 | length >> 11),
            UInt8((length >> 3) & 0xFF),
            UInt8((length & 7) << 5 | 0x1F),
            0xFC,
        ]
    }
}

/// ADTS streams: strip headers to get raw AAC frames plus their AudioSpecificConfig.
public enum ADTS {
    /// One frame of an ADTS stream with its header removed.
    public struct Frame: Equatable, Sendable {
        /// The parsed header.
        public var header: ADTSHeader
        /// The raw AAC access unit (what `mdat` and FLV carry).
        public var payload: ArraySlice<UInt8>
    }

    /// Splits an ADTS stream into frames; fails on a bad syncword or a frame running past the end.
    public static func frames(_ data: [UInt8]) throws(CodecFormatError) -> [Frame] {
        var frames: [Frame] = []
        var offset = 0
        while offset < data.count {
            let header = try ADTSHeader(parsing: data[offset...])
            guard header.frameLength <= data.count - offset else {
                throw .badNALLength(offset: offset, length: header.frameLength, available: data.count - offset)
            }
            frames.append(
                Frame(header: header, payload: data[offset + header.headerLength..<offset + header.frameLength])
            )
            offset += header.frameLength
        }
        return frames
    }

    /// Prefixes a raw AAC frame with a 7-byte ADTS header.
    public static func wrap(_ payload: [UInt8], config: AudioSpecificConfig) -> [UInt8] {
        ADTSHeader(config: config, payloadLength: payload.count).serialize() + payload
    }
}
