import MediaCore
import StreamHub
import Synchronization
import Testing

/// The publisher's own audio beside the hub's track: described first, bounded, ended with the publisher.
@Suite("OriginalAudio")
struct OriginalAudioTests {
    static let opus = AudioParameters(
        codec: .opus,
        decoderConfiguration: Array("OpusHead".utf8),
        sampleRate: 48_000,
        channels: 2,
        samplesPerFrame: 960,
        codecString: "opus"
    )

    static func frame(_ i: Int) -> MediaFrame {
        MediaFrame(kind: .audio, dts: MediaTime(value: Int64(i * 960), timescale: 48_000), isKeyframe: true, data: [1])
    }

    @Test func readersGetTheDescriptionThenFramesThenTheEnd() async throws {
        let tracks = OriginalAudio()
        let key = try #require(StreamKey("cam"))
        #expect(tracks.subscribe(key: key, name: "t") == nil)
        tracks.begin(key: key, parameters: Self.opus)
        let reader = try #require(tracks.subscribe(key: key, name: "t"))
        tracks.send(Self.frame(0), key: key)
        tracks.send(Self.frame(1), key: key)
        tracks.end(key: key)
        guard case .description(let d) = await reader.next() else {
            Issue.record("no description first")
            return
        }
        #expect(d.audio == Self.opus && d.video == nil)
        guard case .frame(let a) = await reader.next(), case .frame(let b) = await reader.next() else {
            Issue.record("frames missing")
            return
        }
        #expect(a.dts.value == 0 && b.dts.value == 960)
        guard case .ended = await reader.next() else {
            Issue.record("no end")
            return
        }
        #expect(await reader.next() == nil)
        #expect(tracks.subscribe(key: key, name: "t") == nil)
    }

    @Test func aSlowReaderDropsTheOldestInsteadOfBlocking() async throws {
        let tracks = OriginalAudio()
        let key = try #require(StreamKey("cam"))
        tracks.begin(key: key, parameters: Self.opus)
        let reader = try #require(tracks.subscribe(key: key, name: "t", capacity: 4))
        for i in 0..<10 { tracks.send(Self.frame(i), key: key) }
        // The description holds one of the four places: three frames are kept, seven dropped.
        #expect(reader.droppedFrames == 7)
        tracks.unsubscribe(reader, from: key)
    }
}

/// Consumers ask a stream's source for a keyframe without knowing its protocol.
@Suite("KeyframeRequests")
struct KeyframeRequestsTests {
    @Test func requestsReachTheRegisteredSourceUntilItLeaves() throws {
        let requests = KeyframeRequests()
        let key = try #require(StreamKey("cam"))
        let asked = Atomic<Int>(0)
        #expect(!requests.request(key: key))
        requests.register(key: key) { asked.add(1, ordering: .relaxed) }
        #expect(requests.request(key: key) && requests.request(key: key))
        requests.unregister(key: key)
        #expect(!requests.request(key: key))
        #expect(asked.load(ordering: .relaxed) == 2)
    }
}
