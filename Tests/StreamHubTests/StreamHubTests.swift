import MediaCore
import StreamHub
import Synchronization
import Testing

/// The hub: one publisher per key, readers that never slow ingest down.
@Suite("StreamHub")
struct StreamHubTests {
    static func frame(_ i: Int) -> MediaFrame {
        MediaFrame(
            kind: .video,
            dts: MediaTime(value: Int64(i), timescale: 30),
            isKeyframe: i == 0,
            data: [UInt8(i & 0xFF)]
        )
    }

    @Test func secondPublisherOnALiveKeyIsRefusedUntilTheFirstEnds() throws {
        let hub = StreamHub()
        let key = try #require(StreamKey("live"))
        let first = try hub.publish(key: key, origin: "a")
        #expect(throws: StreamHubError.alreadyPublishing(key)) { _ = try hub.publish(key: key, origin: "b") }
        first.end()
        let second = try hub.publish(key: key, origin: "b")
        #expect(second.sessionID != first.sessionID)
        #expect(hub.liveKeys == [key])
    }

    /// Ingest telemetry's one hook: frames of ingest publications, whatever protocol sent them; not derived ones
    /// (ladder rungs, the demo), and nothing after the publication ended.
    @Test func onIngestSeesIngestFramesOnly() throws {
        let seen = Mutex<[String]>([])
        let hub = StreamHub(onIngest: { key, frame in seen.withLock { $0.append("\(key) \(frame.dts.value)") } })
        let ingest = try hub.publish(key: try #require(StreamKey("cam")), origin: "whip")
        let rung = try hub.publish(key: ingest.key.rendition("480p"), origin: "transcoder", role: .derived)
        ingest.send(Self.frame(1))
        rung.send(Self.frame(2))
        ingest.send(Self.frame(3))
        ingest.end()
        ingest.send(Self.frame(4))
        #expect(seen.withLock { $0 } == ["cam 1", "cam 3"])
    }

    @Test func slowReaderDropsTheOldestFramesInsteadOfBlocking() async throws {
        let hub = StreamHub()
        let key = try #require(StreamKey("k"))
        let p = try hub.publish(key: key, origin: "t")
        let reader = try #require(hub.subscribe(key: key, name: "slow", capacity: 4))
        // The publisher never waits: ten sends return although nobody reads.
        for i in 0..<10 { p.send(Self.frame(i)) }
        #expect(reader.droppedFrames == 6)
        var got: [Int64] = []
        for _ in 0..<4 {
            if case .frame(let f) = await reader.next() { got.append(f.dts.value) }
        }
        #expect(got == [6, 7, 8, 9])
        #expect(reader.takeDropFlag())
        #expect(!reader.takeDropFlag())
    }

    @Test func lateReaderGetsTheDescriptionFirstAndEndedLast() async throws {
        let hub = StreamHub()
        let key = try #require(StreamKey("k"))
        let p = try hub.publish(key: key, origin: "t")
        let d = StreamDescription(
            audio: AudioParameters(
                decoderConfiguration: [0x11, 0x90],
                sampleRate: 48_000,
                channels: 2,
                codecString: "mp4a.40.2"
            )
        )
        p.update(description: d)
        let reader = try #require(hub.subscribe(key: key, name: "late"))
        p.send(Self.frame(0))
        p.end()
        guard case .description(let got) = await reader.next() else {
            Issue.record("no description first")
            return
        }
        #expect(got == d)
        guard case .frame = await reader.next() else {
            Issue.record("no frame")
            return
        }
        guard case .ended = await reader.next() else {
            Issue.record("no end")
            return
        }
        #expect(await reader.next() == nil)
        #expect(hub.publication(for: key) == nil)
    }

    @Test func announcementsListLiveStreamsAndNewOnes() async throws {
        let hub = StreamHub()
        let a = try #require(StreamKey("a"))
        let b = try #require(StreamKey("b"))
        _ = try hub.publish(key: a, origin: "1")
        var it = hub.announcements().makeAsyncIterator()
        #expect(await it.next()?.key == a)
        _ = try hub.publish(key: b, origin: "2")
        #expect(await it.next()?.key == b)
    }

    /// A watcher busy elsewhere while a short publication starts and ends (a ladder rung of a short or starved
    /// stream) still reads it whole from the reader its announcement carries; subscribing on the announcement found
    /// the key gone and lost the publication for good.
    @Test func announcementsCarryAReaderAttachedBeforeTheFirstFrame() async throws {
        let hub = StreamHub()
        let key = try #require(StreamKey("short"))
        var it = hub.announcements(attaching: (name: "hls", capacity: 64)).makeAsyncIterator()
        let p = try hub.publish(key: key, origin: "1", role: .derived)
        for i in 0..<5 { p.send(Self.frame(i)) }
        p.end()
        #expect(hub.subscribe(key: key, name: "late") == nil, "the publication is over before the watcher looks")
        let note = try #require(await it.next())
        let reader = try #require(note.reader)
        var got: [Int64] = []
        while let event = await reader.next() {
            if case .frame(let f) = event { got.append(f.dts.value) }
        }
        #expect(got == [0, 1, 2, 3, 4])
        // A watcher that asked for no reader gets none.
        var plain = hub.announcements().makeAsyncIterator()
        _ = try hub.publish(key: try #require(StreamKey("other")), origin: "2")
        #expect(await plain.next()?.reader == nil)
    }
}
