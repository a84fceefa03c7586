import CodecFormats
import MediaCore
import TestSupport
import Testing

/// One avcC record: real bytes and the fields they hold.
struct AVCCCase: CustomTestStringConvertible, Sendable {
    let name: String
    let bytes: [UInt8]
    let record: AVCDecoderConfigurationRecord
    var testDescription: String { name }

    static let sps720 = hex("6764001facd9405005bb0110000003001000000303c0f1831960")
    static let pps720 = hex("68ebe3cb22c0")
    static let spsBaseline = hex("6742c00dd90141fb0110000003001000000303c0f142a480")
    static let ppsBaseline = hex("68cb83cb20")

    static let all: [AVCCCase] = [
        // Captured from the `avcC` box of `ffmpeg -f lavfi -i testsrc2=size=1280x720 -c:v libx264 -f mp4`.
        AVCCCase(
            name: "x264 720p high with chroma tail",
            bytes: hex(
                "0164001fffe1001a6764001facd9405005bb0110000003001000000303c0f183196001000668ebe3cb22c0fdf8f800"
            ),
            record: AVCDecoderConfigurationRecord(sps: sps720, pps: pps720)
        ),
        AVCCCase(
            name: "baseline without tail",
            bytes: [0x01, 0x42, 0xC0, 0x0D, 0xFF, 0xE1, 0x00, 0x18] + spsBaseline + [0x01, 0x00, 0x05] + ppsBaseline,
            record: AVCDecoderConfigurationRecord(sps: spsBaseline, pps: ppsBaseline)
        ),
        AVCCCase(
            name: "2-byte lengths, two PPS",
            bytes: [0x01, 0x42, 0xC0, 0x0D, 0xFD, 0xE1, 0x00, 0x18] + spsBaseline + [0x02, 0x00, 0x05] + ppsBaseline
                + [0x00, 0x02, 0x68, 0xCE],
            record: {
                var r = AVCDecoderConfigurationRecord(sps: spsBaseline, pps: ppsBaseline)
                r.nalUnitLengthSize = 2
                r.pictureParameterSets.append([0x68, 0xCE])
                return r
            }()
        ),
    ]
}

/// avcC parse and serialize against real x264 records.
@Suite struct AVCDecoderConfigurationRecordTests {
    @Test(arguments: AVCCCase.all) func decodes(_ c: AVCCCase) throws {
        #expect(try AVCDecoderConfigurationRecord(parsing: c.bytes) == c.record)
    }

    @Test(arguments: AVCCCase.all) func encodes(_ c: AVCCCase) {
        #expect(c.record.serialize() == c.bytes)
    }

    @Test func recordFromSPSTakesProfileFieldsAndFourByteLengths() {
        let r = AVCDecoderConfigurationRecord(sps: AVCCCase.sps720, pps: AVCCCase.pps720)
        #expect(r.profileIndication == 100 && r.profileCompatibility == 0 && r.levelIndication == 0x1F)
        #expect(r.nalUnitLengthSize == 4)
    }

    @Test func acceptsHighProfileRecordWithoutTailAndAddsItOnSerialize() throws {
        let full = AVCCCase.all[0].bytes
        let untailed = Array(full.dropLast(4))
        let record = try AVCDecoderConfigurationRecord(parsing: untailed)
        #expect(record.serialize() == full)
    }

    @Test func rejectsWrongVersion() {
        #expect(throws: CodecFormatError.unsupportedVersion(0)) {
            try AVCDecoderConfigurationRecord(parsing: [0, 0x64, 0, 0x1F, 0xFF, 0xE0, 0])
        }
    }

    @Test func rejectsTruncatedParameterSet() {
        #expect(throws: CodecFormatError.truncated(what: "AVCDecoderConfigurationRecord")) {
            try AVCDecoderConfigurationRecord(parsing: Array(AVCCCase.all[0].bytes.prefix(20)))
        }
    }

    @Test func videoParametersComeFromFirstSPSWithFourByteLengths() throws {
        let twoByte = AVCCCase.all[2]
        let video = try VideoParameters(avcDecoderConfiguration: twoByte.bytes)
        #expect(video.width == 320 && video.height == 240)
        #expect(video.codecString == "avc1.42c00d")
        #expect(video.frameRate == 30)
        #expect(try AVCDecoderConfigurationRecord(parsing: video.decoderConfiguration).nalUnitLengthSize == 4)
        let explicit = try VideoParameters(avcDecoderConfiguration: AVCCCase.all[0].bytes, frameRate: 25)
        #expect(explicit.frameRate == 25 && explicit.width == 1280 && explicit.height == 720)
        #expect(explicit.codecString == "avc1.64001f")
        #expect(explicit.decoderConfiguration == AVCCCase.all[0].bytes)
    }

    @Test func videoParametersNeedAnSPS() {
        #expect(throws: CodecFormatError.missingSPS) {
            try VideoParameters(avcDecoderConfiguration: [1, 0x42, 0, 0x1E, 0xFF, 0xE0, 0])
        }
    }

    @Test func randomAndMutatedRecordsNeverCrashAndReparse() throws {
        var rng = SeededRandom(seed: 0xA7CC)
        for i in 0..<4_000 {
            let input =
                i % 2 == 0
                ? rng.mutate(AVCCCase.all[i / 2 % AVCCCase.all.count].bytes)
                : [1] + rng.bytes(Int.random(in: 0...48, using: &rng))
            guard let record = try? AVCDecoderConfigurationRecord(parsing: input) else { continue }
            // Whatever parses must survive its own serialization unchanged.
            #expect(try AVCDecoderConfigurationRecord(parsing: record.serialize()) == record)
            _ = try? VideoParameters(avcDecoderConfiguration: input)
        }
    }
}
