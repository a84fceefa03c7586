import CodecFormats
import MediaCore
import TestSupport
import Testing

/// One AudioSpecificConfig: bytes and fields.
struct ASCCase: CustomTestStringConvertible, Sendable {
    let name: String
    let bytes: [UInt8]
    let config: AudioSpecificConfig
    var testDescription: String { name }

    static let all: [ASCCase] = [
        ASCCase(
            name: "AAC-LC 44.1 kHz stereo",
            bytes: [0x12, 0x10],
            config: .init(objectType: 2, sampleRate: 44_100, channels: 2)
        ),
        ASCCase(
            name: "AAC-LC 48 kHz stereo",
            bytes: [0x11, 0x90],
            config: .init(objectType: 2, sampleRate: 48_000, channels: 2)
        ),
        ASCCase(
            name: "AAC-LC 24 kHz mono",
            bytes: [0x13, 0x08],
            config: .init(objectType: 2, sampleRate: 24_000, channels: 1)
        ),
        ASCCase(
            name: "HE-AAC 22.05 kHz stereo",
            bytes: [0x2B, 0x90],
            config: .init(objectType: 5, sampleRate: 22_050, channels: 2)
        ),
        // 01111 1111 <24-bit 44 000> 0010 000: explicit frequency.
        ASCCase(
            name: "explicit 44 kHz stereo",
            bytes: [0x17, 0x80, 0x55, 0xF0, 0x10],
            config: .init(objectType: 2, sampleRate: 44_000, channels: 2)
        ),
        // 11111 000010 (type 34) 0011 0001 000: escaped object type.
        ASCCase(
            name: "escaped object type 34, 48 kHz mono",
            bytes: [0xF8, 0x46, 0x20],
            config: .init(objectType: 34, sampleRate: 48_000, channels: 1)
        ),
    ]
}

/// AudioSpecificConfig parse and serialize, including escapes.
@Suite struct AudioSpecificConfigTests {
    @Test(arguments: ASCCase.all) func decodes(_ c: ASCCase) throws {
        #expect(try AudioSpecificConfig(parsing: c.bytes) == c.config)
    }

    @Test(arguments: ASCCase.all) func encodes(_ c: ASCCase) {
        #expect(c.config.serialize() == c.bytes)
    }

    @Test func codecStringNamesObjectType() {
        #expect(ASCCase.all[0].config.codecString == "mp4a.40.2")
        #expect(ASCCase.all[3].config.codecString == "mp4a.40.5")
    }

    @Test func audioParametersKeepBytesAndUse1024SampleFrames() throws {
        let audio = try AudioParameters(audioSpecificConfig: [0x11, 0x90])
        #expect(audio.codec == .aac && audio.sampleRate == 48_000 && audio.channels == 2)
        #expect(audio.samplesPerFrame == 1024 && audio.codecString == "mp4a.40.2")
        #expect(audio.decoderConfiguration == [0x11, 0x90])
    }

    @Test func rejectsReservedFrequencyIndexAndTruncation() {
        #expect(throws: CodecFormatError.reservedSampleRateIndex(13)) {
            try AudioSpecificConfig(parsing: [0x16, 0x90])
        }
        #expect(throws: CodecFormatError.truncated(what: "channelConfiguration")) {
            try AudioSpecificConfig(parsing: [0xF8, 0x46])
        }
    }

    @Test func randomConfigsRoundTripAndRandomBytesNeverCrash() throws {
        var rng = SeededRandom(seed: 0xAAC)
        for _ in 0..<2_000 {
            let rate =
                Bool.random(using: &rng)
                ? AudioSpecificConfig.sampleRates.randomElement(using: &rng)!
                : Int.random(in: 1...0xFF_FFFF, using: &rng)
            let config = AudioSpecificConfig(
                objectType: [Int.random(in: 1...30, using: &rng), Int.random(in: 32...95, using: &rng)].randomElement(
                    using: &rng
                )!,
                sampleRate: rate,
                channels: Int.random(in: 0...7, using: &rng)
            )
            #expect(try AudioSpecificConfig(parsing: config.serialize()) == config)
            _ = try? AudioSpecificConfig(parsing: rng.bytes(Int.random(in: 0...8, using: &rng)))
            _ = try? AudioParameters(audioSpecificConfig: rng.mutate(config.serialize()))
        }
    }
}
