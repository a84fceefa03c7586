import CodecFormats
import MediaCore

@testable import LLHLSPackager

/// Real codec configuration bytes and synthetic frames for packaging tests.
enum Fixtures {
    /// SPS of `ffmpeg -f lavfi -i testsrc2=size=640x360:rate=30 -frames:v 1 -c:v libx264` (High, level 3.0).
    static let sps: [UInt8] = [
        0x67, 0x64, 0x00, 0x1E, 0xAC, 0xD9, 0x40, 0xA0, 0x2F, 0xF9, 0x70, 0x11, 0x00, 0x00, 0x03, 0x00, 0x01, 0x00,
        0x00, 0x03, 0x00, 0x3C, 0x0F, 0x16, 0x2D, 0x96,
    ]
    /// The matching PPS.
    static let pps: [UInt8] = [0x68, 0xEB, 0xE3, 0xCB, 0x22, 0xC0]

    /// Another encoder's PPS (its last byte differs): another init section.
    static let otherPPS: [UInt8] = [0x68, 0xEB, 0xE3, 0xCB, 0x22, 0xC8]

    /// 640x360 H.264 parameters at `frameRate`, built from the real avcC (`otherEncoder`: with `otherPPS`).
    static func video(frameRate: Double = 30, otherEncoder: Bool = false) throws -> VideoParameters {
        let avcC = AVCDecoderConfigurationRecord(sps: sps, pps: otherEncoder ? otherPPS : pps).serialize()
        return try VideoParameters(avcDecoderConfiguration: avcC, frameRate: frameRate)
    }

    /// AAC-LC 48 kHz from AudioSpecificConfig 0x11 0x90 (stereo), or 0x11 0x88 (mono) for `otherEncoder`.
    static func audio(otherEncoder: Bool = false) throws -> AudioParameters {
        try AudioParameters(audioSpecificConfig: [0x11, otherEncoder ? 0x88 : 0x90])
    }

    /// The tracks of a stream; `otherEncoder`: the same shape from another encoder (new init sections).
    static func description(
        frameRate: Double = 30,
        audio withAudio: Bool = true,
        otherEncoder: Bool = false
    ) throws -> StreamDescription {
        StreamDescription(
            video: try video(frameRate: frameRate, otherEncoder: otherEncoder),
            audio: withAudio ? try audio(otherEncoder: otherEncoder) : nil
        )
    }

    /// 2025-11-22T00:00:00Z, the ingest wall clock of a session's first frame.
    static let wall0 = WallTime(millisecondsSince1970: 1_763_769_600_000)

    /// A video access unit (one AVCC NAL unit of dummy bytes; the packager never decodes it).
    static func videoFrame(dts: MediaTime, keyframe: Bool, wall: WallTime? = nil) -> MediaFrame {
        let nal: [UInt8] = keyframe ? [0x65, 0x88, 0x84, 0x00] : [0x41, 0x9A, 0x02, 0x00]
        return MediaFrame(
            kind: .video,
            dts: dts,
            isKeyframe: keyframe,
            data: [0, 0, 0, UInt8(nal.count)] + nal,
            stamps: HopStamps(ingestWall: wall)
        )
    }

    static func audioFrame(dts: MediaTime, wall: WallTime? = nil) -> MediaFrame {
        MediaFrame(
            kind: .audio,
            dts: dts,
            isKeyframe: true,
            data: [0x21, 0x10, 0x04, 0x60, 0x8C, 0x1C],
            stamps: HopStamps(ingestWall: wall)
        )
    }

    /// Interleaved A/V frames in decode order: 30 fps video (keyframe every `gop`) and 48 kHz AAC, `seconds` long.
    /// `millisecond` timestamps mimic RTMP (timescale 1000, rounded), otherwise 90 kHz / 48 kHz exact.
    static func av(
        seconds: Double,
        from start: Double = 0,
        gop: Int = 60,
        fps: Double = 30,
        audio withAudio: Bool = true,
        millisecond: Bool = false,
        sampleRate: Int = 48_000,
        wall: WallTime = wall0
    ) -> [MediaFrame] {
        var frames: [(Double, MediaFrame)] = []
        let videoCount = Int((seconds * fps).rounded())
        for n in 0..<videoCount {
            let t = start + Double(n) / fps
            let dts =
                millisecond
                ? MediaTime(value: Int64((t * 1000).rounded()), timescale: 1000)
                : MediaTime(value: Int64((t * 90_000).rounded()), timescale: 90_000)
            frames.append(
                (t, videoFrame(dts: dts, keyframe: n % gop == 0, wall: wall.advanced(by: .seconds(t - start))))
            )
        }
        if withAudio {
            let rate = Double(sampleRate)
            let audioCount = Int((seconds * rate / 1024).rounded(.down))
            for n in 0..<audioCount {
                let t = start + Double(n) * 1024 / rate
                let dts =
                    millisecond
                    ? MediaTime(value: Int64((t * 1000).rounded()), timescale: 1000)
                    : MediaTime(value: Int64((t * rate).rounded()), timescale: Int32(sampleRate))
                frames.append((t + 0.000_001, audioFrame(dts: dts, wall: wall.advanced(by: .seconds(t - start)))))
            }
        }
        return frames.sorted { $0.0 < $1.0 }.map(\.1)
    }

    static let key = StreamKey("test")!
    static let epoch = "ep"

    /// A state with one session begun and `d` applied.
    static func state(_ d: StreamDescription, config: LLHLSConfiguration = LLHLSConfiguration()) -> LLHLSStreamState {
        var s = LLHLSStreamState(key: key, epoch: epoch, config: config)
        s.beginSession(now: .now)
        s.apply(d, now: .now)
        return s
    }
}

extension LLHLSStreamState {
    /// Applies frames in order; returns what they did.
    @discardableResult
    mutating func feed(_ frames: some Sequence<MediaFrame>, now: ClockReading? = nil) -> [PackagerEvent] {
        frames.flatMap { apply($0, now: now ?? .now) }
    }

    /// Published rendition of `kind` (the test fails loudly when missing).
    func rendition(_ kind: MediaKind) -> PublishedRendition { pipeline(kind)!.rendition }
}

extension PublishedRendition {
    /// Where a segment ends, track ticks.
    func end(of s: PublishedSegment) -> Int64 { s.startDTS + s.duration }

    /// End of the newest published part, seconds.
    var lastPartEndSeconds: Double? {
        guard let s = segments.last(where: { !$0.parts.isEmpty }) else { return nil }
        return Double(s.startDTS + s.duration) / Double(timescale)
    }
}
