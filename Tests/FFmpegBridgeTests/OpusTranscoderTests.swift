import FFmpegBridge
import MediaCore
import Testing

/// FFmpegBridge's AAC → Opus path that WHIP publishing needs (RFC 7587: 48 kHz clock, 20 ms frames).
@Suite struct OpusTranscoderTests {
    /// Two seconds of the test tone as AAC.
    static func toneAAC(seconds: Int = 2) throws -> (AudioParameters, [MediaFrame]) {
        let source = try TestPatternSource(
            configuration: .init(
                width: 160,
                height: 90,
                fps: 10,
                videoBitRate: 100_000,
                duration: .seconds(Int64(seconds))
            )
        )
        var frames: [MediaFrame] = []
        while let frame = try source.nextFrame() {
            if frame.kind == .audio { frames.append(frame) }
        }
        return (source.streamDescription.audio!, frames)
    }

    @Test func aacToneBecomesTwentyMillisecondOpusFramesOnA48kClock() throws {
        let (aac, input) = try Self.toneAAC()
        let opus = try OpusTranscoder(input: aac)
        var out: [MediaFrame] = []
        for frame in input { out += try opus.transcode(frame) }
        #expect(opus.outputParameters.codec == .opus && opus.outputParameters.sampleRate == 48_000)
        #expect(Array(opus.outputParameters.decoderConfiguration.prefix(8)) == Array("OpusHead".utf8))
        // 2 s of tone (plus the AAC encoder's priming and flush, ~3 frames of 1024) as 20 ms frames: about 100.
        #expect(out.count >= 95 && out.count <= 106, "\(out.count)")
        #expect(
            out.allSatisfy {
                $0.kind == .audio && $0.dts.timescale == 48_000 && !$0.data.isEmpty && $0.data.count < 1_000
            }
        )
        #expect(zip(out, out.dropFirst()).allSatisfy { $1.dts.value - $0.dts.value == 960 })
        #expect(out.first?.dts.value == input.first?.pts.converted(to: 48_000).value)
    }

    @Test func opusOutputDecodesBackToAAC() throws {
        let (aac, input) = try Self.toneAAC()
        let opus = try OpusTranscoder(input: aac)
        let back = try AACTranscoder(input: opus.outputParameters)
        var decoded: [MediaFrame] = []
        for frame in input {
            for encoded in try opus.transcode(frame) { decoded += try back.transcode(encoded) }
        }
        // ~1.9 s of Opus back as 1024-sample AAC frames: about 89.
        #expect(decoded.count >= 80 && decoded.count <= 95)
    }

    @Test func videoParametersAreNotAudio() {
        let notAudio = AudioParameters(
            codec: .h264,
            decoderConfiguration: [],
            sampleRate: 90_000,
            channels: 1,
            codecString: "avc1"
        )
        #expect(throws: FFmpegError.self) { try OpusTranscoder(input: notAudio) }
    }
}
