import HLSPlaylist
import Logging
import MediaCore
import StreamHub
import Synchronization
import Telemetry
import Testing

@testable import LLHLSPackager

/// The packager following a real StreamHub: publish, reconnect, grace, ENDLIST.
@Suite("LLHLSPackager with a StreamHub")
struct LLHLSPackagerHubTests {
    /// Polls `condition` every 10 ms for up to `limit` (long: it only bounds a failing run, and a busy box is slow).
    static func eventually(_ limit: Duration = .seconds(30), _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    static func config(grace: Duration) -> LLHLSConfiguration {
        var c = LLHLSConfiguration()
        c.reconnectGrace = grace
        return c
    }

    @Test func publishedStreamAppearsAndPublishesParts() async throws {
        let hub = StreamHub()
        let packager = LLHLSPackager(
            hub: hub,
            configuration: Self.config(grace: .seconds(10)),
            logger: Logger(label: "test")
        )
        let run = Task { await packager.run() }
        defer { run.cancel() }
        let publication = try hub.publish(key: Fixtures.key, origin: "test")
        publication.update(description: try Fixtures.description())
        // The packager subscribes when the hub announces the key; frames sent before that reach no reader.
        #expect(try await Self.eventually { packager.stream(for: Fixtures.key) != nil })
        let stream = try #require(packager.stream(for: Fixtures.key))
        for f in Fixtures.av(seconds: 3) { publication.send(f) }
        #expect(
            try await Self.eventually {
                stream.state.withLock { $0.pipeline(.video)?.rendition.lastCompleteMSN == PublishedRendition.firstMSN }
            }
        )
        let r = await stream.mediaPlaylist(
            .video,
            request: PlaylistRequest(msn: PublishedRendition.firstMSN + 1, part: 0)
        )
        #expect(r.status == 200)
        #expect(packager.streams.map(\.key) == [Fixtures.key])
        #expect(stream.summary().state == "live")
        #expect(stream.summary().partTarget == 0.201)
        publication.end()
        run.cancel()
        await run.value
        // Shutdown ends every playlist (graceful ENDLIST).
        #expect(stream.isEnded)
    }

    /// A packager that starts after publishers are live (services start together; OBS reconnects the moment a
    /// restarted gateway listens) gets the live keys replayed in hash order: rungs often before their source.
    @Test func rungsReplayedBeforeTheirSourceStillJoinTheirStream() async throws {
        let hub = StreamHub()
        let d = try Fixtures.description(audio: false)
        // 12 sources with one rung each: every order of the replay is as likely, rung-first for some of them.
        let keys = (0..<12).map { StreamKey("cam\($0)")! }
        var publications: [Publication] = []
        for key in keys {
            let rung = try hub.publish(key: key.rendition("360p"), origin: "transcoder")
            let source = try hub.publish(key: key, origin: "test")
            source.update(description: d)
            rung.update(description: d)
            publications += [rung, source]
        }
        let packager = LLHLSPackager(
            hub: hub,
            configuration: Self.config(grace: .seconds(10)),
            logger: Logger(label: "test")
        )
        let run = Task { await packager.run() }
        defer { run.cancel() }
        let joined = try await Self.eventually {
            keys.allSatisfy { packager.stream(for: $0)?.hasRendition("360p") ?? false }
        }
        let missing = keys.filter { !(packager.stream(for: $0)?.hasRendition("360p") ?? false) }
        #expect(joined, "streams without their rung: \(missing)")
        // And the rung packages: its frames after the source's reach a playlist.
        let stream = try #require(packager.stream(for: keys[0]))
        for f in Fixtures.av(seconds: 3, audio: false) {
            publications[1].send(f)
            publications[0].send(f)
        }
        #expect(
            try await Self.eventually {
                stream.state.withLock { ($0.rungs["360p"]?.rendition.segments.count ?? 0) > 0 }
            }
        )
        for p in publications { p.end() }
    }

    @Test func publisherLeavingEndsThePlaylistAfterTheReconnectGrace() async throws {
        let hub = StreamHub()
        let packager = LLHLSPackager(
            hub: hub,
            configuration: Self.config(grace: .milliseconds(300)),
            logger: Logger(label: "test")
        )
        let run = Task { await packager.run() }
        defer { run.cancel() }
        let publication = try hub.publish(key: Fixtures.key, origin: "test")
        publication.update(description: try Fixtures.description())
        #expect(try await Self.eventually { packager.stream(for: Fixtures.key) != nil })
        let stream = try #require(packager.stream(for: Fixtures.key))
        for f in Fixtures.av(seconds: 3) { publication.send(f) }
        #expect(
            try await Self.eventually {
                stream.state.withLock { $0.pipeline(.video)?.rendition.lastCompleteMSN == PublishedRendition.firstMSN }
            }
        )
        let left = ContinuousClock.now
        publication.end()
        #expect(try await Self.eventually { stream.summary().state == "reconnecting" })
        #expect(!stream.isEnded)
        #expect(try await Self.eventually(.seconds(3)) { stream.isEnded })
        #expect(ContinuousClock.now - left >= .milliseconds(300))
        let text = try #require(stream.state.withLock { $0.mediaPlaylist(.video) }).render()
        #expect(text.contains("#EXT-X-ENDLIST\n"))
        #expect(!text.contains("PRELOAD-HINT"))
    }

    @Test func longEndedStreamsAreForgottenWithTheirTelemetry() async throws {
        let hub = StreamHub()
        var c = Self.config(grace: .milliseconds(100))
        c.endedRetention = .milliseconds(300)
        let packager = LLHLSPackager(hub: hub, configuration: c, logger: Logger(label: "test"))
        let run = Task { await packager.run() }
        defer { run.cancel() }
        let publication = try hub.publish(key: Fixtures.key, origin: "test")
        publication.update(description: try Fixtures.description())
        #expect(try await Self.eventually { packager.stream(for: Fixtures.key) != nil })
        for f in Fixtures.av(seconds: 3) { publication.send(f) }
        #expect(try await Self.eventually { packager.telemetry.streamKeys == [Fixtures.key] })
        publication.end()
        #expect(try await Self.eventually { packager.stream(for: Fixtures.key)?.isEnded == true })
        // Ended streams stay listed for endedRetention (late viewers get ENDLIST), then go, histograms included.
        #expect(packager.telemetry.streamKeys == [Fixtures.key])
        #expect(try await Self.eventually(.seconds(3)) { packager.stream(for: Fixtures.key) == nil })
        #expect(packager.telemetry.streamKeys.isEmpty)
    }

    @Test func reconnectWithinTheGraceContinuesTheSameStream() async throws {
        let hub = StreamHub()
        let packager = LLHLSPackager(
            hub: hub,
            configuration: Self.config(grace: .seconds(10)),
            logger: Logger(label: "test")
        )
        let run = Task { await packager.run() }
        defer { run.cancel() }
        let first = try hub.publish(key: Fixtures.key, origin: "a")
        first.update(description: try Fixtures.description())
        #expect(try await Self.eventually { packager.stream(for: Fixtures.key) != nil })
        let stream = try #require(packager.stream(for: Fixtures.key))
        for f in Fixtures.av(seconds: 3) { first.send(f) }
        #expect(
            try await Self.eventually {
                stream.state.withLock { $0.pipeline(.video)?.rendition.lastCompleteMSN == PublishedRendition.firstMSN }
            }
        )
        first.end()
        #expect(try await Self.eventually { stream.summary().state == "reconnecting" })
        let second = try hub.publish(key: Fixtures.key, origin: "b")
        second.update(description: try Fixtures.description())
        #expect(try await Self.eventually { stream.summary().state == "live" })
        for f in Fixtures.av(seconds: 3, from: 50) { second.send(f) }
        #expect(
            try await Self.eventually {
                stream.state.withLock {
                    $0.pipeline(.video)?.rendition.lastCompleteMSN ?? 0 >= PublishedRendition.firstMSN + 2
                }
            }
        )
        #expect(packager.stream(for: Fixtures.key) === stream)
        let segments = stream.state.withLock { $0.pipeline(.video)?.rendition.segments ?? [] }
        #expect(
            segments.map(\.msn) == Array(PublishedRendition.firstMSN..<PublishedRendition.firstMSN + segments.count)
        )
        #expect(segments.filter(\.discontinuity).map(\.msn) == [PublishedRendition.firstMSN + 2])
        #expect(stream.summary().state == "live")
        second.end()
    }

    @Test func streamEndedAndRepublishedGetsANewEpoch() async throws {
        let hub = StreamHub()
        let packager = LLHLSPackager(
            hub: hub,
            configuration: Self.config(grace: .milliseconds(100)),
            logger: Logger(label: "test")
        )
        let run = Task { await packager.run() }
        defer { run.cancel() }
        let first = try hub.publish(key: Fixtures.key, origin: "a")
        first.update(description: try Fixtures.description())
        #expect(try await Self.eventually { packager.stream(for: Fixtures.key) != nil })
        let old = try #require(packager.stream(for: Fixtures.key))
        for f in Fixtures.av(seconds: 1) { first.send(f) }
        first.end()
        #expect(try await Self.eventually { old.isEnded })
        // The next millisecond, so the epoch (ms since 1970 in base 36) must differ.
        let ended = WallTime.now().millisecondsSince1970
        #expect(try await Self.eventually { WallTime.now().millisecondsSince1970 > ended })
        let second = try hub.publish(key: Fixtures.key, origin: "b")
        #expect(try await Self.eventually { packager.stream(for: Fixtures.key) !== old })
        let new = try #require(packager.stream(for: Fixtures.key))
        #expect(new.state.withLock { $0.epoch } != old.state.withLock { $0.epoch })
        second.end()
    }
}
