import CodecFormats
import FuzzSupport
import MediaCore

/// AudioSpecificConfig and ADTS: any bytes parse or throw; a parsed config or header serializes back to itself.
@main enum FuzzAACEntry {
    static func main() { FuzzDriver.run(fuzzAAC) }
}

/// One libFuzzer input.
func fuzzAAC(_ bytes: [UInt8]) {
    if let config = try? AudioSpecificConfig(parsing: bytes) {
        precondition(config.channelCount >= 0, "negative channel count")
        _ = try? AudioParameters(audioSpecificConfig: bytes)
        if config.sampleRateIndex != nil {
            let again = try? AudioSpecificConfig(parsing: config.serialize())
            precondition(again?.sampleRate == config.sampleRate, "ASC round trip changed the sample rate")
        }
    }
    if let header = try? ADTSHeader(parsing: bytes[...]) {
        precondition(header.frameLength >= header.headerLength, "ADTS frame shorter than its header")
    }
    if let frames = try? ADTS.frames(bytes) {
        precondition(frames.reduce(0) { $0 + $1.header.frameLength } <= bytes.count, "ADTS frames overrun input")
    }
}
