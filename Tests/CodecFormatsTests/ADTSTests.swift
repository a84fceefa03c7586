import CodecFormats
import TestSupport
import Testing

/// ADTS header parsing, writing and stream splitting.
@Suite struct ADTSTests {
    /// The first frame header of `ffmpeg -f lavfi -i sine=sample_rate=44100 -c:a aac -f adts` (mono, 265 bytes).
    static let ffmpegHeader: [UInt8] = [0xFF, 0xF1, 0x50, 0x40, 0x21, 0x3F, 0xFC]

    @Test func decodesRealHeader() throws {
        let header = try ADTSHeader(parsing: Self.ffmpegHeader[...])
        #expect(header.config == AudioSpecificConfig(objectType: 2, sampleRate: 44_100, channels: 1))
        #expect(header.headerLength == 7 && header.frameLength == 265)
    }

    @Test func encodesRealHeaderApartFromBufferFullness() {
        let header = ADTSHeader(
            config: AudioSpecificConfig(objectType: 2, sampleRate: 44_100, channels: 1),
            payloadLength: 258
        )
        // ffmpeg writes buffer fullness 0x7FF as we do; only the fields we own are compared.
        #expect(header.serialize() == Self.ffmpegHeader)
    }

    @Test func stripsHeadersFromAStream() throws {
        let config = AudioSpecificConfig(objectType: 2, sampleRate: 48_000, channels: 2)
        let payloads: [[UInt8]] = [[1, 2, 3], [], [4, 5, 6, 7]]
        let stream = payloads.flatMap { ADTS.wrap($0, config: config) }
        let frames = try ADTS.frames(stream)
        #expect(frames.map { Array($0.payload) } == payloads)
        #expect(frames.allSatisfy { $0.header.config == config })
    }

    @Test func skipsCRCWhenProtectionIsPresent() throws {
        var bytes = ADTS.wrap([9, 9], config: AudioSpecificConfig(objectType: 2, sampleRate: 44_100, channels: 2))
        bytes[1] = 0xF0  // protection_absent = 0: a 2-byte CRC follows the header.
        bytes.insert(contentsOf: [0xAB, 0xCD], at: 7)
        bytes[4] = UInt8((11 >> 3) & 0xFF)
        bytes[5] = UInt8((11 & 7) << 5 | 0x1F)
        let frames = try ADTS.frames(bytes)
        #expect(frames.count == 1 && Array(frames[0].payload) == [9, 9])
    }

    @Test func rejectsBadSyncwordAndShortFrame() {
        #expect(throws: CodecFormatError.badADTSSyncword(offset: 0)) { try ADTS.frames([0xFF, 0x01, 0, 0, 0, 0, 0]) }
        let frame = ADTS.wrap([1, 2, 3], config: AudioSpecificConfig(objectType: 2, sampleRate: 44_100, channels: 2))
        #expect(throws: CodecFormatError.badNALLength(offset: 0, length: 10, available: 9)) {
            try ADTS.frames(Array(frame.dropLast()))
        }
    }

    @Test func randomBytesNeverCrash() {
        var rng = SeededRandom(seed: 0xAD75)
        for _ in 0..<3_000 {
            var data = rng.bytes(Int.random(in: 0...40, using: &rng))
            if data.count > 1 {
                data[0] = 0xFF
                data[1] |= 0xF0
            }
            _ = try? ADTS.frames(data)
        }
    }
}
