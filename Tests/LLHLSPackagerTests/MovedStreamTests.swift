import Logging
import MediaCore
import StreamHub
import Synchronization
import Testing

@testable import LLHLSPackager

/// A stream moving between nodes, as the packager sees it: a key with no stream here asks once whether it continues
/// another node's numbering, and a stream that moved away is retired without ENDLIST.
@Suite("LLHLSPackager across nodes")
struct MovedStreamTests {
    typealias Hub = LLHLSPackagerHubTests

    @Test func aKeyWithNoStreamHereContinuesTheNumberingItIsGivenAndAReconnectHereDoesNotAskAgain() async throws {
        let hub = StreamHub()
        let asked = Mutex(0)
        let packager = LLHLSPackager(
            hub: hub,
            configuration: Hub.config(grace: .seconds(10)),
            logger: Logger(label: "test"),
            continuations: { _ in
                asked.withLock { $0 += 1 }
                return ContinuationTests.continuation
            }
        )
        let run = Task { await packager.run() }
        defer { run.cancel() }
        let first = try hub.publish(key: Fixtures.key, origin: "test")
        first.update(description: try Fixtures.description())
        #expect(try await Hub.eventually { packager.stream(for: Fixtures.key) != nil })
        let stream = try #require(packager.stream(for: Fixtures.key))
        for f in Fixtures.av(seconds: 3) { first.send(f) }
        #expect(try await Hub.eventually { stream.state.withLock { $0.video?.rendition.lastCompleteMSN != nil } })
        #expect(stream.state.withLock { $0.rendition(.video).segments.first?.msn } == 43)
        let position = try #require(packager.position(of: Fixtures.key, node: "http://n2"))
        #expect(position.epoch == stream.epoch && position.node == "http://n2" && position.discontinuity == 4)
        // The publisher reconnects here within the grace: the stream here continues, nobody is asked.
        first.end()
        #expect(try await Hub.eventually { stream.summary().state == "reconnecting" })
        let second = try hub.publish(key: Fixtures.key, origin: "test")
        second.update(description: try Fixtures.description())
        #expect(try await Hub.eventually { stream.summary().state == "live" })
        #expect(asked.withLock { $0 } == 1 && packager.stream(for: Fixtures.key) === stream)
        second.end()
    }

    @Test func aRetiredStreamAnswersItsWaitersWith503AndIsServedNoMore() async throws {
        let hub = StreamHub()
        let packager = LLHLSPackager(
            hub: hub,
            configuration: Hub.config(grace: .seconds(10)),
            logger: Logger(label: "test")
        )
        let run = Task { await packager.run() }
        defer { run.cancel() }
        let publication = try hub.publish(key: Fixtures.key, origin: "test")
        publication.update(description: try Fixtures.description())
        #expect(try await Hub.eventually { packager.stream(for: Fixtures.key) != nil })
        let stream = try #require(packager.stream(for: Fixtures.key))
        for f in Fixtures.av(seconds: 3) { publication.send(f) }
        #expect(try await Hub.eventually { stream.state.withLock { $0.video?.rendition.lastPart != nil } })
        publication.end()
        #expect(try await Hub.eventually { stream.summary().state == "reconnecting" })
        // A viewer waits for the next part, which this node will never make: the stream moved.
        let hint = stream.state.withLock { $0.rendition(.video).nextPartPosition }
        let inbox = ParkedRequestTests.Inbox()
        let request = PlaylistRequest(msn: hint.msn, part: hint.part)
        #expect(stream.answerMediaPlaylist(rendition: "video", request: request, deliver: inbox.deliver) != nil)
        #expect(packager.retire(Fixtures.key))
        #expect(packager.stream(for: Fixtures.key) == nil && !packager.retire(Fixtures.key))
        let answer = try #require(inbox.all.first)
        #expect(answer.response.status == 503 && answer.response.maxAge == 0)
        // No ENDLIST: a viewer who asks again is relayed from the new owner, not told the stream is over.
        #expect(!stream.isEnded)
    }
}
