import MediaCore
import StreamHub
import Testing

/// A reader that must decode before its first picture starts at the last video keyframe, then goes on live.
struct LastGOPReplayTests {
    /// Video frame `i` (keyframe when `key`), or an audio frame.
    static func frame(_ i: Int, key: Bool = false, kind: MediaKind = .video) -> MediaFrame {
        MediaFrame(kind: kind, dts: MediaTime(value: Int64(i), timescale: 30), isKeyframe: key, data: [UInt8(i)])
    }

    /// What a reader got until `count` frames: "d" for the description, else "v3"/"a4".
    static func events(_ reader: StreamReader, frames count: Int) async -> [String] {
        var seen: [String] = []
        var frames = 0
        while frames < count, let event = await reader.next() {
            switch event {
            case .description: seen.append("d")
            case .frame(let f):
                seen.append((f.kind == .video ? "v" : "a") + "\(f.dts.value)")
                frames += 1
            case .ended: seen.append("end")
            }
        }
        return seen
    }

    static let description = StreamDescription(
        audio: AudioParameters(decoderConfiguration: [0x11, 0x90], sampleRate: 48_000, channels: 2, codecString: "x")
    )

    @Test func aLateReaderGetsTheVideoSinceTheLastKeyframeThenLiveFrames() async throws {
        let hub = StreamHub()
        let key = try #require(StreamKey("k"))
        let p = try hub.publish(key: key, origin: "t")
        p.update(description: Self.description)
        p.send(Self.frame(0, key: true))
        p.send(Self.frame(1))
        p.send(Self.frame(2, key: true))
        p.send(Self.frame(3))
        p.send(Self.frame(4, kind: .audio))  // Audio is not replayed.
        p.send(Self.frame(5))
        let (reader, replayed) = try #require(hub.subscribeReplayingLastGOP(key: key, name: "rung"))
        #expect(replayed == 3)
        p.send(Self.frame(6))
        #expect(await Self.events(reader, frames: 4) == ["d", "v2", "v3", "v5", "v6"])
    }

    @Test func nothingIsReplayedBeforeAKeyframeOrAcrossANewDescription() async throws {
        let hub = StreamHub()
        let key = try #require(StreamKey("k"))
        let p = try hub.publish(key: key, origin: "t")
        p.send(Self.frame(1))  // No keyframe yet: nothing a decoder could start from.
        #expect(hub.subscribeReplayingLastGOP(key: key, name: "a")?.replayed == 0)
        p.send(Self.frame(2, key: true))
        p.send(Self.frame(3))
        #expect(hub.subscribeReplayingLastGOP(key: key, name: "b")?.replayed == 2)
        p.update(description: Self.description)  // New parameter sets: the old GOP does not decode with them.
        #expect(hub.subscribeReplayingLastGOP(key: key, name: "c")?.replayed == 0)
        p.end()
        #expect(hub.subscribeReplayingLastGOP(key: key, name: "d") == nil)
    }
}
