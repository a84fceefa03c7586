import CodecFormats
import MediaCore
import RTMPIngest
import RTMPWire
import TestSupport
import Testing

/// RTMPToStream fed with E-RTMP tags FFmpeg 9 wrote (libx265 with B-frames, libsvtav1).
struct RTMPToStreamEnhancedTests {
    static func tags(_ bytes: [UInt8]) -> [FLVTag] {
        var reader = ByteReader(bytes, offset: 13)  // FLV header (9) + PreviousTagSize0 (4).
        var tags: [FLVTag] = []
        while reader.remaining > 0, let tag = try? FLVTag.read(from: &reader) { tags.append(tag) }
        return tags
    }

    /// Feeds every video tag; returns the descriptions, the frames and the FLV keyframe flags of the coded frames.
    static func run(
        _ tags: [FLVTag]
    ) throws -> (descriptions: [StreamDescription], frames: [MediaFrame], flvKeys: [Bool]) {
        var adapter = RTMPToStream()
        _ = adapter.update(metadata: StreamMetadata(hasAudio: false))
        var descriptions: [StreamDescription] = []
        var frames: [MediaFrame] = []
        var flvKeys: [Bool] = []
        for tag in tags where tag.kind == .video {
            let parsed = try ExVideoTag.parse(tag.body)
            if parsed.packetType == .codedFrames || parsed.packetType == .codedFramesX {
                flvKeys.append(parsed.isKeyframe)
            }
            for output in try adapter.video(timestamp: tag.timestamp, body: tag.body, stamps: HopStamps()) {
                switch output {
                case .description(let d): descriptions.append(d)
                case .frame(let f): frames.append(f)
                }
            }
        }
        return (descriptions, frames, flvKeys)
    }

    @Test(.enabled(if: EnhancedRTMPFFmpeg.path != nil))
    func hevcWithBFramesBecomesHVC1FramesWithIRAPKeyframes() throws {
        let flv = try #require(
            EnhancedRTMPFFmpeg.flv(videoCodec: [
                "-c:v", "libx265", "-x265-params", "bframes=2:keyint=25:log-level=error",
            ])
        )
        let (descriptions, frames, flvKeys) = try Self.run(Self.tags(flv))
        let video = try #require(descriptions.first?.video)
        #expect(descriptions.count == 1)
        #expect(video.codec == .hevc && video.codecString == "hvc1.1.6.L60.90")
        #expect(video.width == 320 && video.height == 240)
        #expect(frames.count == 50)
        #expect(frames.map(\.isKeyframe) == flvKeys)
        #expect(frames.filter(\.isKeyframe).count == 2)
        // B-frames: some frames present after later-decoded ones.
        #expect(frames.contains { $0.compositionOffset.value > 0 })
        for frame in frames { #expect(HEVC.containsIRAP(lengthPrefixed: frame.data) == frame.isKeyframe) }
    }

    @Test(.enabled(if: EnhancedRTMPFFmpeg.path != nil))
    func av1BecomesAV01TemporalUnitsWithoutDelimiters() throws {
        let flv = try #require(EnhancedRTMPFFmpeg.flv(videoCodec: ["-c:v", "libsvtav1", "-preset", "12", "-g", "25"]))
        let (descriptions, frames, flvKeys) = try Self.run(Self.tags(flv))
        let video = try #require(descriptions.first?.video)
        #expect(video.codec == .av1 && video.codecString == "av01.0.00M.08")
        #expect(video.width == 320 && video.height == 240)
        #expect(frames.count == flvKeys.count && !frames.isEmpty)
        #expect(frames.map(\.isKeyframe) == flvKeys)
        #expect(frames.first?.isKeyframe == true)
        for frame in frames { #expect(try AV1OBU.split(frame.data).allSatisfy { $0.type != 2 }) }
    }

    @Test func unsupportedFourCCClosesTheSessionWithItsName() {
        var adapter = RTMPToStream()
        #expect(throws: RTMPIngestError.unsupportedVideoCodec(.vp09)) {
            try adapter.video(timestamp: 0, body: [0x90] + Array("vp09".utf8) + [1, 0], stamps: HopStamps())
        }
        #expect(throws: RTMPIngestError.flv(.unknownPacketType(9))) {
            try adapter.video(timestamp: 0, body: [0x99] + Array("hvc1".utf8), stamps: HopStamps())
        }
    }

    @Test func enhancedAACJoinsTheDescriptionAndOpusIsRefusedByName() throws {
        var adapter = RTMPToStream()
        _ = adapter.update(metadata: StreamMetadata(hasVideo: false))
        let start = ExAudioTag(packetType: .sequenceStart, tracks: [.init(fourCC: .mp4a, payload: [0x11, 0x90])])
        let announced = try adapter.audio(timestamp: 0, body: start.serialize(), stamps: HopStamps())
        guard case .description(let description) = try #require(announced.first) else {
            Issue.record("no description")
            return
        }
        #expect(description.audio?.codecString == "mp4a.40.2" && description.audio?.sampleRate == 48_000)
        let coded = ExAudioTag(packetType: .codedFrames, tracks: [.init(fourCC: .mp4a, payload: [0x21, 0x10])])
        let out = try adapter.audio(timestamp: 21, body: coded.serialize(), stamps: HopStamps())
        guard case .frame(let frame) = try #require(out.last) else {
            Issue.record("no frame")
            return
        }
        #expect(frame.data == [0x21, 0x10] && frame.dts.value == 21)
        let opus = ExAudioTag(packetType: .sequenceStart, tracks: [.init(fourCC: .opus, payload: [1])])
        #expect(throws: RTMPIngestError.unsupportedAudioCodec(.opus)) {
            try adapter.audio(timestamp: 0, body: opus.serialize(), stamps: HopStamps())
        }
    }

    @Test func multitrackServesTheFirstTrackAndListsTheOthers() throws {
        let hvcC = try #require(HEVCConfigurationFixture.main)
        var adapter = RTMPToStream()
        _ = adapter.update(metadata: StreamMetadata(hasAudio: false))
        let start = ExVideoTag(
            frameType: .keyframe,
            packetType: .sequenceStart,
            multitrack: .manyTracks,
            tracks: [.init(fourCC: .hvc1, trackID: 0, payload: hvcC), .init(fourCC: .hvc1, trackID: 1, payload: hvcC)]
        )
        let announced = try adapter.video(timestamp: 0, body: start.serialize(), stamps: HopStamps())
        #expect(announced.count == 1)
        let idr: [UInt8] = [0, 0, 0, 3, 0x26, 0x01, 0xAF]
        let trail: [UInt8] = [0, 0, 0, 3, 0x02, 0x01, 0xAF]
        let coded = ExVideoTag(
            frameType: .keyframe,
            packetType: .codedFrames,
            multitrack: .manyTracks,
            tracks: [.init(fourCC: .hvc1, trackID: 0, payload: idr), .init(fourCC: .hvc1, trackID: 1, payload: trail)]
        )
        let out = try adapter.video(timestamp: 40, body: coded.serialize(), stamps: HopStamps())
        guard case .frame(let frame) = try #require(out.last) else {
            Issue.record("no frame")
            return
        }
        #expect(frame.data == idr && frame.isKeyframe)
        #expect(adapter.otherVideoTracks == [1: .hvc1])
    }

    /// Two audio tracks the way FFmpeg 9 sends them: track 0 as classic AAC tags, track 1 as E-RTMP Multitrack. Track 1's
    /// sequence start must not replace the served configuration, and its frames must not be served.
    @Test func multitrackAudioServesTrackZeroAndListsTheOthers() throws {
        var adapter = RTMPToStream()
        _ = adapter.update(metadata: StreamMetadata(hasVideo: false))
        // Classic AAC, 48 kHz stereo (AudioSpecificConfig 11 90), then 44.1 kHz mono (12 08) on track 1.
        let announced = try adapter.audio(timestamp: 0, body: [0xAF, 0x00, 0x11, 0x90], stamps: HopStamps())
        #expect(announced.count == 1)
        let other = ExAudioTag(
            packetType: .sequenceStart,
            multitrack: .oneTrack,
            tracks: [.init(fourCC: .mp4a, trackID: 1, payload: [0x12, 0x08])]
        )
        #expect(try adapter.audio(timestamp: 0, body: other.serialize(), stamps: HopStamps()).isEmpty)
        #expect(adapter.announced?.audio?.sampleRate == 48_000)
        let otherFrame = ExAudioTag(
            packetType: .codedFrames,
            multitrack: .oneTrack,
            tracks: [.init(fourCC: .mp4a, trackID: 1, payload: [0x55])]
        )
        #expect(try adapter.audio(timestamp: 21, body: otherFrame.serialize(), stamps: HopStamps()).isEmpty)
        let served = try adapter.audio(timestamp: 21, body: [0xAF, 0x01, 0x21, 0x10], stamps: HopStamps())
        guard case .frame(let frame) = try #require(served.last) else {
            Issue.record("no frame")
            return
        }
        #expect(frame.data == [0x21, 0x10])
        #expect(adapter.otherAudioTracks == [1: .mp4a])
        #expect(adapter.framesDroppedBeforeSequenceHeader == 0)
    }
}

/// FFmpeg 9 publishing two video tracks: track 0 is the stream (a classic AVC tag or a plain ExVideoTag), track 1's
/// Multitrack packets are listed and not served.
struct RTMPToStreamMultitrackTests {
    static let codecs: [(String, [String])] = [
        ("h264", ["-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-bf", "0"]),
        ("hevc", ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "keyint=25:bframes=0:log-level=error"]),
    ]

    @Test(.enabled(if: EnhancedRTMPFFmpeg.path != nil), arguments: codecs.map(\.0))
    func ffmpeg9MultitrackServesTrackZeroOnly(_ name: String) throws {
        let args = try #require(Self.codecs.first { $0.0 == name }?.1)
        let flv = try #require(EnhancedRTMPFFmpeg.multitrackFLV(videoCodec: args))
        let tags = RTMPToStreamEnhancedTests.tags(flv).filter { $0.kind == .video }
        // The second track really is there, as Multitrack packets with track id 1.
        let second = tags.compactMap { try? ExVideoTag.parse($0.body) }.filter { $0.multitrack != nil }
        #expect(!second.isEmpty && second.allSatisfy { $0.tracks.map(\.trackID) == [1] })
        var adapter = RTMPToStream()
        _ = adapter.update(metadata: StreamMetadata(hasAudio: false))
        var descriptions: [StreamDescription] = []
        var frames: [MediaFrame] = []
        for tag in tags {
            for output in try adapter.video(timestamp: tag.timestamp, body: tag.body, stamps: HopStamps()) {
                switch output {
                case .description(let d): descriptions.append(d)
                case .frame(let f): frames.append(f)
                }
            }
        }
        #expect(descriptions.count == 1)
        #expect(descriptions.first?.video?.width == 320 && descriptions.first?.video?.height == 240)
        #expect(descriptions.first?.video?.codec == (name == "h264" ? .h264 : .hevc))
        // 2 s at 25 fps of track 0 alone, in decode order without repeats.
        #expect(frames.count == 50)
        #expect(Set(frames.map(\.dts.value)).count == frames.count)
        #expect(adapter.otherVideoTracks == [1: name == "h264" ? .avc1 : .hvc1])
        #expect(adapter.framesDroppedBeforeSequenceHeader == 0)
    }
}

/// The x265 Main 320x240 hvcC (VPS/SPS/PPS) from an FFmpeg 9 E-RTMP SequenceStart.
enum HEVCConfigurationFixture {
    static let main: [UInt8]? = hex(
        """
        0101600000009000000000003cf000fcfdf8f800000f03200001001840010c01ffff01600000030090000003000003003c95900921\
        0001002a42010101600000030090000003000003003ca00a080f16595924932bc05a02000003000200000300321022000100074401\
        c172b46240
        """
    )
}
