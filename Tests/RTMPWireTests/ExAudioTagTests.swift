import MediaCore
import RTMPWire
import TestSupport
import Testing

/// E-RTMP v2 Enhanced Audio: one golden table (each AudioPacketType, mp4a and Opus, Multitrack, ModEx) drives
/// parse and serialize.
struct ExAudioTagTests {
    /// An audio body and its meaning.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var tag: ExAudioTag
        var testDescription: String { name }
    }

    static let mp4a: [UInt8] = Array("mp4a".utf8)
    static let opus: [UInt8] = Array("Opus".utf8)

    static let all: [Case] = [
        Case(
            name: "mp4a SequenceStart",
            bytes: [0x90] + mp4a + [0x11, 0x90],
            tag: ExAudioTag(packetType: .sequenceStart, tracks: [.init(fourCC: .mp4a, payload: [0x11, 0x90])])
        ),
        Case(
            name: "Opus CodedFrames",
            bytes: [0x91] + opus + [0xFC, 1],
            tag: ExAudioTag(packetType: .codedFrames, tracks: [.init(fourCC: .opus, payload: [0xFC, 1])])
        ),
        Case(
            name: "SequenceEnd",
            bytes: [0x92] + mp4a,
            tag: ExAudioTag(packetType: .sequenceEnd, tracks: [.init(fourCC: .mp4a, payload: [])])
        ),
        Case(
            name: "MultichannelConfig (native order, stereo)",
            bytes: [0x94] + opus + [2, 2, 0, 0, 0, 3],
            tag: ExAudioTag(
                packetType: .multichannelConfig,
                tracks: [.init(fourCC: .opus, payload: [2, 2, 0, 0, 0, 3])]
            )
        ),
        Case(
            name: "Multitrack ManyTracksManyCodecs",
            bytes: [0x95, 0x21] + mp4a + [0, 0, 0, 1, 0x21] + opus + [1, 0, 0, 1, 0xFC],
            tag: ExAudioTag(
                packetType: .codedFrames,
                multitrack: .manyTracksManyCodecs,
                tracks: [
                    .init(fourCC: .mp4a, trackID: 0, payload: [0x21]),
                    .init(fourCC: .opus, trackID: 1, payload: [0xFC]),
                ]
            )
        ),
        Case(
            name: "ModEx TimestampOffsetNano",
            bytes: [0x97, 2, 0, 0, 0x64, 0x01] + mp4a + [0x21],
            tag: ExAudioTag(
                packetType: .codedFrames,
                tracks: [.init(fourCC: .mp4a, payload: [0x21])],
                timestampOffsetNanoseconds: 100
            )
        ),
    ]

    @Test(arguments: all)
    func parses(_ c: Case) throws { #expect(try ExAudioTag.parse(c.bytes) == c.tag) }

    @Test(arguments: all)
    func serializes(_ c: Case) { #expect(c.tag.serialize() == c.bytes) }

    @Test func soundFormatNineSeparatesEnhancedFromClassicAAC() {
        #expect(ExAudioTag.isEnhanced([0x90] + Self.mp4a))
        #expect(!ExAudioTag.isEnhanced([0xAF, 1]))
        #expect(throws: FLVError.unknownPacketType(3)) { try ExAudioTag.parse([0x93] + Self.mp4a) }
        #expect(throws: FLVError.notEnhanced(0xAF)) { try ExAudioTag.parse([0xAF, 1]) }
        #expect(throws: FLVError.truncated(field: "ExAudioTag", size: 3)) { try ExAudioTag.parse([0x90, 0x6D, 0x70]) }
    }
}
