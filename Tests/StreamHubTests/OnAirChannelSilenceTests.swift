import MediaCore
import Synchronization
import TestSupport
import Testing

@testable import StreamHub

/// A source whose audio ended short of its video is topped up with silence before the next source (or the slate)
/// splices on: the next source starts where the air ends, and a hole left in the audio there made hls.js stall
/// (bufferSeekOverHole) at a takeover.
struct OnAirChannelSilenceTests {
    static let audio = OnAirChannelTests.audio
    static let program = StreamDescription(video: OnAirChannelTests.video, audio: audio)
    /// The silence's payload, to tell it from the source's audio.
    static let silent: [UInt8] = [7]

    /// Makes a slate whose silence decodes with `audio`, counting the clips it made.
    final class Maker: SlateMaker {
        let made = Mutex(0)

        func clip(matching description: StreamDescription) -> SlateClip? {
            made.withLock { $0 += 1 }
            return SlateClip(
                description: StreamDescription(video: OnAirChannelTests.video, audio: OnAirChannelSilenceTests.audio),
                video: [MediaFrame(kind: .video, dts: .zero(timescale: 90_000), isKeyframe: true, data: [8])],
                videoFrameDuration: MediaTime(value: 3_000, timescale: 90_000),
                audio: MediaFrame(
                    kind: .audio,
                    dts: .zero(timescale: 48_000),
                    isKeyframe: true,
                    data: OnAirChannelSilenceTests.silent
                ),
                audioFrameDuration: MediaTime(value: 1_024, timescale: 48_000)
            )
        }
    }

    /// Three pictures to 0.1 s and one audio frame to 0.021 s: the audio ends 79 ms short of the video.
    static func sendShortAudio(_ p: Publication) {
        p.update(description: program)
        for i in 0..<3 { p.send(OnAirChannelTests.frame(i, key: i == 0)) }
        p.send(MediaFrame(kind: .audio, dts: .zero(timescale: 48_000), isKeyframe: true, data: [2]))
    }

    /// Events until the air's description of `sequence`.
    static func read(_ reader: StreamReader, untilSequence sequence: Int) async -> [StreamEvent] {
        var out: [StreamEvent] = []
        while let e = await reader.next() {
            out.append(e)
            if case .description(let d) = e, d.encodingSequence == sequence { return out }
        }
        return out
    }

    /// The silent frames' start times (48 kHz) among `events`.
    static func silence(_ events: [StreamEvent]) -> [Int64] {
        events.compactMap { e in
            if case .frame(let f) = e, f.data == silent { f.dts.converted(to: 48_000).value } else { nil }
        }
    }

    /// A hub whose only publisher sent audio short of its video and left; the air's events until the slate's
    /// description, and a reader to read on.
    static func slateAfterShortAudio() async throws -> (StreamHub, StreamKey, StreamReader, [StreamEvent]) {
        var config = OnAirConfiguration()
        config.grace = .seconds(5)
        config.slateWarmUp = .seconds(60)
        config.minimumSlate = .zero
        let hub = StreamHub(onAir: config, slateMaker: Maker())
        let key = try #require(StreamKey("cam"))
        let primary = try hub.publish(key: key, origin: "a")
        let reader = try #require(hub.subscribe(key: key, name: "t"))
        sendShortAudio(primary)
        primary.end()
        return (hub, key, reader, await read(reader, untilSequence: 1))
    }

    @Test func theSlateSplicesOnAfterSilenceThatReachesTheLeavingSourcesVideo() async throws {
        let (hub, key, _, events) = try await Self.slateAfterShortAudio()
        // From the audio's end (1 024) to the first frame end at or past the video's (0.1 s = 4 800).
        #expect(Self.silence(events) == [1_024, 2_048, 3_072, 4_096])
        #expect(hub.onAirStatus(for: key)?.onAir == "slate")
    }

    @Test func aTakeoverSplicesOnAfterSilenceFromTheSlateMadeForTheProgram() async throws {
        var config = OnAirChannelTests.withoutSlate
        config.slateWarmUp = .zero
        let maker = Maker()
        let hub = StreamHub(onAir: config, slateMaker: maker)
        let key = try #require(StreamKey("cam"))
        let primary = try hub.publish(key: key, origin: "a")
        let reader = try #require(hub.subscribe(key: key, name: "t"))
        let backup = try hub.publish(key: key, origin: "b", seat: .backup)
        backup.update(description: Self.program)
        Self.sendShortAudio(primary)
        #expect(await eventually { maker.made.withLock { $0 } >= 1 })
        // The clip is kept right after it is made, in the same task.
        try await Task.sleep(for: .milliseconds(100))
        primary.end()
        backup.send(OnAirChannelTests.frame(1_000, key: true))
        var events = await Self.read(reader, untilSequence: 1)
        #expect(Self.silence(events) == [1_024, 2_048, 3_072, 4_096])
        events = await OnAirChannelTests.read(reader, frames: 1)
        let keyframe = events.compactMap { e -> MediaFrame? in if case .frame(let f) = e { f } else { nil } }.first
        // It starts where the silence ends (5 120 at 48 kHz), not at the video's end with a hole in the audio.
        #expect(keyframe?.dts == MediaTime(value: 9_600, timescale: 90_000))
        backup.end()
    }

    /// The slate's audio is topped up with its own silence to its video's end when the publisher comes back, wherever
    /// the slate's loop stood (`ms` after its first picture): the returning source starts where both end, with no hole
    /// in the audio.
    @Test(arguments: [0, 40, 70, 100])
    func aReturningSourceSplicesOnAfterTheSlatesSilenceReachesItsVideo(afterMilliseconds ms: Int) async throws {
        let (hub, key, reader, _) = try await Self.slateAfterShortAudio()
        // The slate's frames come on the channel's tick: a return before its first picture would leave none to fill.
        let first = await OnAirChannelTests.read(reader, frames: 1)
        try await Task.sleep(for: .milliseconds(ms))
        let back = try hub.publish(key: key, origin: "a")
        back.update(description: Self.program)
        back.send(OnAirChannelTests.frame(1_000, key: true))
        let slate = await (first + Self.read(reader, untilSequence: 2)).compactMap { e -> MediaFrame? in
            if case .frame(let f) = e { f } else { nil }
        }
        let keyframe = await OnAirChannelTests.read(reader, frames: 1).compactMap { e -> MediaFrame? in
            if case .frame(let f) = e { f } else { nil }
        }.first
        let videoEnd = try #require(slate.filter { $0.kind == .video }.map { $0.dts.seconds + 3_000 / 90_000.0 }.max())
        let audio = slate.filter { $0.kind == .audio }.map(\.dts.seconds)
        let audioEnd = try #require(audio.max()) + 1_024 / 48_000.0
        #expect(
            audioEnd >= videoEnd - 1e-9 && audioEnd < videoEnd + 1_024 / 48_000.0,
            "audio \(audioEnd) video \(videoEnd)"
        )
        #expect(zip(audio, audio.dropFirst()).allSatisfy { abs($1 - $0 - 1_024 / 48_000.0) < 1e-6 })
        #expect(abs((keyframe?.dts.seconds ?? 0) - audioEnd) < 1e-4)
        back.end()
    }
}
