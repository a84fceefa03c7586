/// ISO/IEC 14496-3 §1.6.2.1: the AAC AudioSpecificConfig (object type, sampling rate, channel layout).
public struct AudioSpecificConfig: Equatable, Sendable {
    /// audioObjectType, e.g. 2 for AAC-LC, 5 for SBR; values above 31 use the escape code.
    public var objectType: Int
    /// Sampling frequency in Hz.
    public var sampleRate: Int
    /// channelConfiguration (0 = in a program config element, 1…6 = that many channels, 7 = 7.1).
    public var channelConfiguration: Int

    /// Table 1.18 samplingFrequencyIndex 0…12.
    public static let sampleRates = [
        96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000, 7_350,
    ]

    /// Parses the leading fields; GASpecificConfig and extensions are not interpreted.
    public init(parsing bytes: [UInt8]) throws(CodecFormatError) {
        var r = BitReader(bytes)
        var type = Int(try r.readBits(5, "audioObjectType"))
        if type == 31 { type = 32 + Int(try r.readBits(6, "audioObjectTypeExt")) }
        objectType = type
        sampleRate = try Self.readSampleRate(&r)
        channelConfiguration = Int(try r.readBits(4, "channelConfiguration"))
    }

    /// A config for `channels` channels (8 maps to configuration 7).
    public init(objectType: Int, sampleRate: Int, channels: Int) {
        self.objectType = objectType
        self.sampleRate = sampleRate
        channelConfiguration = channels == 8 ? 7 : channels
    }

    /// Output channel count implied by `channelConfiguration` (7 means 7.1, eight channels).
    public var channelCount: Int { channelConfiguration == 7 ? 8 : channelConfiguration }

    /// sampling_frequency_index for `sampleRate`, or nil when it needs the explicit 24-bit form.
    public var sampleRateIndex: Int? { Self.sampleRates.firstIndex(of: sampleRate) }

    /// RFC 6381 §3.3: `mp4a.40.<objectType>`.
    public var codecString: String { "mp4a.40.\(objectType)" }

    /// The config bytes with a plain GASpecificConfig (frameLengthFlag, dependsOnCoreCoder, extensionFlag all 0).
    public func serialize() -> [UInt8] {
        var bits: [(value: Int, width: Int)] = []
        // 31 is the escape code itself; 32…95 travel as 31 plus a 6-bit extension.
        if objectType > 30 {
            bits += [(31, 5), (max(0, objectType - 32), 6)]
        } else {
            bits.append((objectType, 5))
        }
        if let index = sampleRateIndex {
            bits.append((index, 4))
        } else {
            bits += [(15, 4), (sampleRate, 24)]
        }
        bits += [(channelConfiguration, 4), (0, 3)]
        var out: [UInt8] = []
        var accumulator = 0
        var filled = 0
        for (value, width) in bits {
            for shift in stride(from: width - 1, through: 0, by: -1) {
                accumulator = accumulator << 1 | (value >> shift) & 1
                filled += 1
                if filled == 8 {
                    out.append(UInt8(accumulator))
                    accumulator = 0
                    filled = 0
                }
            }
        }
        if filled > 0 { out.append(UInt8(accumulator << (8 - filled))) }
        return out
    }

    /// samplingFrequencyIndex, or the explicit 24-bit samplingFrequency after index 15.
    private static func readSampleRate(_ r: inout BitReader) throws(CodecFormatError) -> Int {
        let index = Int(try r.readBits(4, "samplingFrequencyIndex"))
        if index == 15 { return Int(try r.readBits(24, "samplingFrequency")) }
        guard index < sampleRates.count else { throw .reservedSampleRateIndex(index) }
        return sampleRates[index]
    }
}
