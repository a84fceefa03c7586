import MediaCore
import Synchronization
import Testing

@testable import StreamHub

/// A key's air through the hub: readers follow one publication while a backup takes over and gives back, on one
/// timeline, with a new encoding sequence (a DISCONTINUITY for players) at each splice.
struct OnAirChannelTests {
    static let video = VideoParameters(
        codec: .h264,
        decoderConfiguration: [1, 0x64, 0, 0x1E],
        width: 640,
        height: 360,
        codecString: "avc1.64001e",
        frameRate: 30
    )

    static let audio = AudioParameters(
        codec: .aac,
        decoderConfiguration: [0x11, 0x90],
        sampleRate: 48_000,
        channels: 2,
        samplesPerFrame: 1_024,
        codecString: "mp4a.40.2"
    )

    /// A grace of 5 s without the slate: the air waits for a publisher between sources.
    static let withoutSlate: OnAirConfiguration = {
        var config = OnAirConfiguration()
        config.slate = false
        config.grace = .seconds(5)
        return config
    }()

    static func frame(_ i: Int, key: Bool = false) -> MediaFrame {
        MediaFrame(kind: .video, dts: MediaTime(value: Int64(i) * 3_000, timescale: 90_000), isKeyframe: key, data: [1])
    }

    /// Events a reader got until `count` frames.
    static func read(_ reader: StreamReader, frames count: Int) async -> [StreamEvent] {
        var out: [StreamEvent] = []
        var frames = 0
        while frames < count, let e = await reader.next() {
            out.append(e)
            if case .frame = e { frames += 1 }
        }
        return out
    }

    @Test func readersFollowOneAirWhileABackupTakesOverAndGivesBack() async throws {
        let switches = Mutex<[OnAirSwitchEvent.Kind]>([])
        let hub = StreamHub(onAir: Self.withoutSlate, onSwitch: { e in switches.withLock { $0.append(e.kind) } })
        let key = try #require(StreamKey("cam"))
        let primary = try hub.publish(key: key, origin: "a")
        let reader = try #require(hub.subscribe(key: key, name: "t"))
        let backup = try hub.publish(key: key, origin: "b", seat: .backup)
        #expect(throws: StreamHubError.alreadyPublishing(key)) { try hub.publish(key: key, origin: "c") }
        primary.update(description: StreamDescription(video: Self.video))
        backup.update(description: StreamDescription(video: Self.video))
        for i in 0..<3 { primary.send(Self.frame(i, key: i == 0)) }
        backup.send(Self.frame(1_000, key: true))
        primary.end()
        backup.send(Self.frame(1_001))
        backup.send(Self.frame(1_002, key: true))
        backup.send(Self.frame(1_003))
        let events = await Self.read(reader, frames: 5)
        let times = events.compactMap { e -> Int64? in if case .frame(let f) = e { f.dts.value } else { nil } }
        #expect(times == [0, 3_000, 6_000, 9_000, 12_000])
        let sequences = events.compactMap { e -> Int? in
            if case .description(let d) = e { d.encodingSequence } else { nil }
        }
        #expect(sequences == [0, 1])
        #expect(hub.onAirStatus(for: key)?.onAir == "backup")
        #expect(hub.publication(for: key)?.isEnded == false)
        #expect(
            switches.withLock { $0 } == [
                .switched(from: "primary", to: nil, reason: "left"),
                .switched(from: nil, to: "backup", reason: "takeover"),
            ]
        )
        backup.end()
    }

    /// `admits` answers as `publish` would, for SRT's handshake: a live key's free backup seat and a seat its
    /// publisher left (the slate's wait) admit; a seat whose publisher sends, and a key a derived publisher owns, do not.
    @Test func admitsAnswersAsPublishWould() async throws {
        let hub = StreamHub(onAir: Self.withoutSlate)
        let key = try #require(StreamKey("cam"))
        #expect(hub.admits(.primary, on: key) && hub.admits(.backup, on: key))
        let primary = try hub.publish(key: key, origin: "a")
        #expect(!hub.admits(.primary, on: key))
        #expect(hub.admits(.backup, on: key))
        let backup = try hub.publish(key: key, origin: "b", seat: .backup)
        #expect(!hub.admits(.backup, on: key))
        primary.end()
        #expect(hub.admits(.primary, on: key))
        _ = try hub.publish(key: key, origin: "c")
        #expect(!hub.admits(.primary, on: key))
        backup.end()
        let derived = try #require(StreamKey("cam_360p"))
        _ = try hub.publish(key: derived, origin: "ladder", role: .derived)
        #expect(!hub.admits(.primary, on: derived) && !hub.admits(.backup, on: derived))
    }

    /// An encoder sends audio a little ahead of the keyframe a takeover splices at: the audio after that keyframe goes
    /// on air with it (dropped, it left a hole at the switch that stock hls.js stalled on), the audio before it not.
    @Test func aTakeoverAirsTheBackupsAudioThatCameAheadOfItsKeyframe() async throws {
        let hub = StreamHub(onAir: Self.withoutSlate)
        let key = try #require(StreamKey("cam"))
        let primary = try hub.publish(key: key, origin: "a")
        let reader = try #require(hub.subscribe(key: key, name: "t"))
        let backup = try hub.publish(key: key, origin: "b", seat: .backup)
        primary.update(description: StreamDescription(video: Self.video))
        backup.update(description: StreamDescription(video: Self.video, audio: Self.audio))
        primary.send(Self.frame(0, key: true))
        primary.end()
        // The backup's keyframe at 30 s (1_440_000 at 48 kHz) comes after audio of 29.957, 29.979, 30.000 and 30.021 s.
        let sound = (-2..<2).map { n in
            MediaFrame(
                kind: .audio,
                dts: MediaTime(value: 1_440_000 + Int64(n) * 1_024, timescale: 48_000),
                isKeyframe: true,
                data: [2]
            )
        }
        for f in sound { backup.send(f) }
        backup.send(Self.frame(900, key: true))
        backup.send(
            MediaFrame(kind: .audio, dts: MediaTime(value: 1_442_048, timescale: 48_000), isKeyframe: true, data: [2])
        )
        backup.send(Self.frame(901))
        backup.send(Self.frame(902))
        let events = await Self.read(reader, frames: 5)
        let aired = events.compactMap { e -> MediaFrame? in if case .frame(let f) = e { f } else { nil } }
        #expect(aired.map(\.kind) == [.video, .video, .audio, .audio, .audio])
        // On the air's timeline the keyframe follows the primary's frame, and the audio keeps its place beside it.
        let keyframe = try #require(aired.dropFirst().first).dts
        #expect(aired.dropFirst(2).map { ($0.dts - keyframe).converted(to: 48_000).value } == [0, 1_024, 2_048])
        backup.end()
    }

    @Test func aReconnectReplacesAPublicationThatWentSilentAndTheOldOneCannotSendAnyMore() async throws {
        var config = Self.withoutSlate
        config.failoverAfter = .milliseconds(50)
        let switches = Mutex<[OnAirSwitchEvent.Kind]>([])
        let hub = StreamHub(onAir: config, onSwitch: { e in switches.withLock { $0.append(e.kind) } })
        let key = try #require(StreamKey("cam"))
        let old = try hub.publish(key: key, origin: "a")
        let reader = try #require(hub.subscribe(key: key, name: "t"))
        old.update(description: StreamDescription(video: Self.video))
        old.send(Self.frame(0, key: true))
        try await Task.sleep(for: .milliseconds(150))
        let new = try hub.publish(key: key, origin: "b")
        #expect(old.isEnded && !new.isEnded)
        new.update(description: StreamDescription(video: Self.video))
        // The old connection wakes up: nothing of it reaches the air, and its end does not unseat the new one.
        old.send(Self.frame(1, key: true))
        new.send(Self.frame(500, key: true))
        new.send(Self.frame(501))
        let events = await Self.read(reader, frames: 3)
        let times = events.compactMap { e -> Int64? in if case .frame(let f) = e { f.dts.value } else { nil } }
        #expect(times.count == 3 && times == times.sorted())
        #expect(hub.onAirStatus(for: key)?.onAir == "primary" && hub.onAirStatus(for: key)?.primary == true)
        let kinds = switches.withLock { $0 }
        #expect(
            kinds.contains { k in
                if case .replaced(.primary, let silent, _) = k { silent >= .milliseconds(50) } else { false }
            }
        )
        #expect(kinds.contains(.switched(from: "primary", to: nil, reason: "stalled")))
        new.end()
    }

    @Test func withoutAGraceTheAirEndsWithItsOnlyPublisherAsBefore() async throws {
        let hub = StreamHub()
        let key = try #require(StreamKey("solo"))
        let p = try hub.publish(key: key, origin: "a")
        let reader = try #require(hub.subscribe(key: key, name: "t"))
        p.send(Self.frame(0, key: true))
        p.end()
        let events = await Self.read(reader, frames: 2)
        #expect(events.count == 2)
        if case .ended = events.last {} else { Issue.record("no end: \(events)") }
        #expect(hub.publication(for: key) == nil)
        #expect(try hub.publish(key: key, origin: "again").key == key)
    }

    @Test func aPublisherWhoseTimestampsJumpBackStaysOnOneTimelineAndIsLoggedOnce() async throws {
        let switches = Mutex<[OnAirSwitchEvent.Kind]>([])
        let hub = StreamHub(onSwitch: { e in switches.withLock { $0.append(e.kind) } })
        let key = try #require(StreamKey("restart"))
        let p = try hub.publish(key: key, origin: "a")
        let reader = try #require(hub.subscribe(key: key, name: "t"))
        p.update(description: StreamDescription(video: Self.video))
        // An encoder restarted 100 frames back, on the same connection.
        for i in [300, 301, 302, 200, 201] { p.send(Self.frame(i, key: i == 300 || i == 200)) }
        let events = await Self.read(reader, frames: 5)
        let times = events.compactMap { e -> Int64? in if case .frame(let f) = e { f.dts.value } else { nil } }
        #expect(times == [900_000, 903_000, 906_000, 909_000, 912_000])
        let offset = MediaTime(value: 309_000, timescale: 90_000)
        let from = MediaTime(value: 906_000, timescale: 90_000)
        let to = MediaTime(value: 600_000, timescale: 90_000)
        #expect(
            switches.withLock { $0 } == [.rebased(role: .primary, track: .video, from: from, to: to, offset: offset)]
        )
        p.end()
    }
}
