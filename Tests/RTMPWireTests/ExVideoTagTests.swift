import MediaCore
import RTMPWire
import TestSupport
import Testing

/// E-RTMP v2 Enhanced Video: one golden table (every PacketType, every FourCC, Multitrack, ModEx) drives parse
/// and serialize.
struct ExVideoTagTests {
    /// A video body and its meaning.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var tag: ExVideoTag
        var testDescription: String { name }
    }

    static let hvc1: [UInt8] = Array("hvc1".utf8)
    static let av01: [UInt8] = Array("av01".utf8)
    static let vp09: [UInt8] = Array("vp09".utf8)
    static let avc1: [UInt8] = Array("avc1".utf8)
    /// FFmpeg 9's first colorInfo Metadata packet for libx265, verbatim.
    static let ffmpegColorInfo = hex(
        "d468766331020009636f6c6f72496e666f03000b636f6c6f72436f6e66696703000009000009"
    )

    static let all: [Case] = [
        Case(
            name: "hvc1 SequenceStart",
            bytes: [0x90] + hvc1 + [1, 2],
            tag: ExVideoTag(
                frameType: .keyframe,
                packetType: .sequenceStart,
                tracks: [.init(fourCC: .hvc1, payload: [1, 2])]
            )
        ),
        Case(
            name: "hvc1 CodedFrames keyframe, cts +80 ms",
            bytes: [0x91] + hvc1 + [0, 0, 0x50, 0, 0, 0, 1, 0x26],
            tag: ExVideoTag(
                frameType: .keyframe,
                packetType: .codedFrames,
                tracks: [.init(fourCC: .hvc1, compositionTime: 80, payload: [0, 0, 0, 1, 0x26])]
            )
        ),
        Case(
            name: "hvc1 CodedFrames inter frame, cts -34 ms",
            bytes: [0xA1] + hvc1 + [0xFF, 0xFF, 0xDE, 9],
            tag: ExVideoTag(
                frameType: .interframe,
                packetType: .codedFrames,
                tracks: [.init(fourCC: .hvc1, compositionTime: -34, payload: [9])]
            )
        ),
        Case(
            name: "hvc1 CodedFramesX disposable (cts implied 0)",
            bytes: [0xB3] + hvc1 + [9, 9],
            tag: ExVideoTag(
                frameType: .disposableInterframe,
                packetType: .codedFramesX,
                tracks: [.init(fourCC: .hvc1, payload: [9, 9])]
            )
        ),
        Case(
            name: "hvc1 SequenceEnd",
            bytes: [0x92] + hvc1,
            tag: ExVideoTag(frameType: .keyframe, packetType: .sequenceEnd, tracks: [.init(fourCC: .hvc1, payload: [])])
        ),
        Case(
            name: "av01 SequenceStart",
            bytes: [0x90] + av01 + [0x81, 0, 0x0C, 0],
            tag: ExVideoTag(
                frameType: .keyframe,
                packetType: .sequenceStart,
                tracks: [.init(fourCC: .av01, payload: [0x81, 0, 0x0C, 0])]
            )
        ),
        Case(
            name: "av01 CodedFrames carry no composition time",
            bytes: [0xA1] + av01 + [0x12, 0],
            tag: ExVideoTag(
                frameType: .interframe,
                packetType: .codedFrames,
                tracks: [.init(fourCC: .av01, payload: [0x12, 0])]
            )
        ),
        Case(
            name: "vp09 SequenceStart",
            bytes: [0x90] + vp09 + [1, 0],
            tag: ExVideoTag(
                frameType: .keyframe,
                packetType: .sequenceStart,
                tracks: [.init(fourCC: .vp09, payload: [1, 0])]
            )
        ),
        Case(
            name: "avc1 CodedFrames, cts +40 ms",
            bytes: [0x91] + avc1 + [0, 0, 0x28, 0x65],
            tag: ExVideoTag(
                frameType: .keyframe,
                packetType: .codedFrames,
                tracks: [.init(fourCC: .avc1, compositionTime: 40, payload: [0x65])]
            )
        ),
        Case(
            name: "MPEG2TSSequenceStart",
            bytes: [0x95] + av01 + [0x80, 4],
            tag: ExVideoTag(
                frameType: .keyframe,
                packetType: .mpeg2TSSequenceStart,
                tracks: [.init(fourCC: .av01, payload: [0x80, 4])]
            )
        ),
        Case(
            name: "Metadata colorInfo from FFmpeg 9",
            bytes: ffmpegColorInfo,
            tag: ExVideoTag(
                frameType: .command,
                packetType: .metadata,
                tracks: [.init(fourCC: .hvc1, payload: Array(ffmpegColorInfo[5...]))]
            )
        ),
        Case(
            name: "command frame (end seek)",
            bytes: [0xD1, 1],
            tag: ExVideoTag(frameType: .command, packetType: .codedFrames, tracks: [], command: 1)
        ),
        Case(
            name: "Multitrack OneTrack",
            bytes: [0x96, 0x01] + hvc1 + [2, 0, 0, 0, 7],
            tag: ExVideoTag(
                frameType: .keyframe,
                packetType: .codedFrames,
                multitrack: .oneTrack,
                tracks: [.init(fourCC: .hvc1, trackID: 2, payload: [7])]
            )
        ),
        Case(
            name: "Multitrack ManyTracks",
            bytes: [0x96, 0x10] + hvc1 + [0, 0, 0, 2, 0xA, 0xB, 1, 0, 0, 1, 0xC],
            tag: ExVideoTag(
                frameType: .keyframe,
                packetType: .sequenceStart,
                multitrack: .manyTracks,
                tracks: [
                    .init(fourCC: .hvc1, trackID: 0, payload: [0xA, 0xB]),
                    .init(fourCC: .hvc1, trackID: 1, payload: [0xC]),
                ]
            )
        ),
        Case(
            name: "Multitrack ManyTracksManyCodecs",
            bytes: [0xA6, 0x23] + hvc1 + [0, 0, 0, 1, 0xE] + av01 + [1, 0, 0, 1, 0xF],
            tag: ExVideoTag(
                frameType: .interframe,
                packetType: .codedFramesX,
                multitrack: .manyTracksManyCodecs,
                tracks: [
                    .init(fourCC: .hvc1, trackID: 0, payload: [0xE]), .init(fourCC: .av01, trackID: 1, payload: [0xF]),
                ]
            )
        ),
        Case(
            name: "ModEx TimestampOffsetNano",
            bytes: [0x97, 2, 0x00, 0x01, 0xF4, 0x03] + hvc1 + [7],
            tag: ExVideoTag(
                frameType: .keyframe,
                packetType: .codedFramesX,
                tracks: [.init(fourCC: .hvc1, payload: [7])],
                timestampOffsetNanoseconds: 500
            )
        ),
    ]

    @Test(arguments: all)
    func parses(_ c: Case) throws { #expect(try ExVideoTag.parse(c.bytes) == c.tag) }

    @Test(arguments: all)
    func serializes(_ c: Case) { #expect(c.tag.serialize() == c.bytes) }

    @Test func isExHeaderSeparatesEnhancedFromClassicBodies() {
        #expect(ExVideoTag.isEnhanced([0x90] + Self.hvc1))
        #expect(!ExVideoTag.isEnhanced([0x17, 0, 0, 0, 0]))
        #expect(!ExVideoTag.isEnhanced([]))
    }

    @Test func fourCCNamesItselfForLogs() {
        #expect("\(FourCC.hvc1)" == "hvc1")
        #expect("\(FourCC(rawValue: 0x6100_0001))" == "a???")
    }

    @Test func malformedBodiesAreTypedErrors() {
        #expect(throws: FLVError.unknownPacketType(8)) { try ExVideoTag.parse([0x98] + Self.hvc1) }
        #expect(throws: FLVError.unknownFrameType(0)) { try ExVideoTag.parse([0x81] + Self.hvc1) }
        #expect(throws: FLVError.unknownMultitrackType(3)) { try ExVideoTag.parse([0x96, 0x31] + Self.hvc1) }
        #expect(throws: FLVError.unknownPacketType(6)) { try ExVideoTag.parse([0x96, 0x06] + Self.hvc1) }
        #expect(throws: FLVError.trackOverrun(trackID: 0, size: 9, remaining: 1)) {
            try ExVideoTag.parse([0x96, 0x11] + Self.hvc1 + [0, 0, 0, 9, 1])
        }
        #expect(throws: FLVError.notEnhanced(0x17)) { try ExVideoTag.parse([0x17, 1, 0, 0, 0]) }
        #expect(throws: FLVError.truncated(field: "ExVideoTag", size: 2)) { try ExVideoTag.parse([0x90, 0x68]) }
        #expect(throws: FLVError.truncated(field: "ExVideoTag", size: 7)) {
            try ExVideoTag.parse([0x91] + Self.hvc1 + [0, 0])
        }
    }
}
