import MediaCore
import RTMPWire
import TestSupport
import Testing

/// FLV spec v10.1 Annex E tag bodies: one golden table drives parse and serialize.
struct FLVTagTests {
    /// A video body and its meaning.
    struct VideoCase: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var tag: FLVVideoTag
        var testDescription: String { name }
    }

    static let video: [VideoCase] = [
        VideoCase(
            name: "sequence header",
            bytes: [0x17, 0, 0, 0, 0, 1, 0x64],
            tag: .sequenceHeader(decoderConfiguration: [1, 0x64])
        ),
        VideoCase(
            name: "keyframe with positive cts",
            bytes: [0x17, 1, 0, 0, 0x50, 0, 0, 0, 1, 0x65],
            tag: .nalUnits(isKeyframe: true, compositionTime: 80, data: [0, 0, 0, 1, 0x65])
        ),
        VideoCase(
            name: "inter frame with negative cts",
            bytes: [0x27, 1, 0xFF, 0xFF, 0xDE, 9],
            tag: .nalUnits(isKeyframe: false, compositionTime: -34, data: [9])
        ),
        VideoCase(name: "end of sequence", bytes: [0x17, 2, 0, 0, 0], tag: .endOfSequence),
    ]

    /// An audio body and its meaning.
    struct AudioCase: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var tag: FLVAudioTag
        var testDescription: String { name }
    }

    static let audio: [AudioCase] = [
        AudioCase(
            name: "AAC sequence header",
            bytes: [0xAF, 0, 0x11, 0x90],
            tag: .sequenceHeader(audioSpecificConfig: [0x11, 0x90])
        ),
        AudioCase(name: "AAC raw frame", bytes: [0xAF, 1, 0x21, 0x10], tag: .raw([0x21, 0x10])),
    ]

    @Test(arguments: video)
    func parsesVideo(_ c: VideoCase) throws { #expect(try FLVVideoTag.parse(c.bytes) == c.tag) }

    @Test(arguments: video)
    func serializesVideo(_ c: VideoCase) { #expect(c.tag.serialize() == c.bytes) }

    @Test(arguments: audio)
    func parsesAudio(_ c: AudioCase) throws { #expect(try FLVAudioTag.parse(c.bytes) == c.tag) }

    @Test(arguments: audio)
    func serializesAudio(_ c: AudioCase) { #expect(c.tag.serialize() == c.bytes) }

    @Test func fileTagRoundTripsWithExtendedTimestamp() throws {
        let tag = FLVTag(kind: .video, timestamp: 0x0123_4567, body: [0x17, 2, 0, 0, 0])
        let bytes = tag.serialize()
        #expect(bytes == [9, 0, 0, 5, 0x23, 0x45, 0x67, 0x01, 0, 0, 0, 0x17, 2, 0, 0, 0, 0, 0, 0, 16])
        var reader = ByteReader(bytes)
        #expect(try FLVTag.read(from: &reader) == tag)
        #expect(reader.remaining == 0)
    }

    @Test func unsupportedCodecsAndShortBodiesAreTypedErrors() {
        #expect(throws: FLVError.unsupportedVideoCodec(2)) { try FLVVideoTag.parse([0x12, 1, 0, 0, 0]) }
        #expect(throws: FLVError.unsupportedAudioFormat(2)) { try FLVAudioTag.parse([0x2F, 1]) }
        #expect(throws: FLVError.unknownPacketType(3)) { try FLVVideoTag.parse([0x17, 3, 0, 0, 0]) }
        #expect(throws: FLVError.self) { try FLVVideoTag.parse([0x17, 1]) }
        #expect(throws: FLVError.self) { try FLVAudioTag.parse([0xAF]) }
    }

    @Test(arguments: 0..<200 as Range<UInt64>)
    func randomBodiesOnlyYieldTypedErrors(_ seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        let body = rng.bytes(Int.random(in: 0...16, using: &rng))
        if let tag = try? FLVVideoTag.parse(body), case .nalUnits = tag, body[0] == 0x17 || body[0] == 0x27 {
            #expect(tag.serialize() == body)
        }
        if let tag = try? FLVAudioTag.parse(body) {
            #expect(Array(tag.serialize().dropFirst()) == Array(body.dropFirst()))
        }
    }
}
