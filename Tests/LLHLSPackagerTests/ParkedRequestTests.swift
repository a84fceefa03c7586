import LLHLSPackager
import MediaCore
import Synchronization
import Testing

@testable import LLHLSPackager

/// Requests parked without a task (the origin's fast path): one check per group per change, one shared answer for
/// every waiter of a group, time-outs from each waiter's deadline, answers shared per URL and state.
@Suite("Parked requests")
struct ParkedRequestTests {
    typealias Blocking = LLHLSStreamBlockingTests

    /// Collects what deliveries brought, in order.
    final class Inbox: Sendable {
        private let got = Mutex<[SharedResponse]>([])
        var all: [SharedResponse] { got.withLock { $0 } }
        var deliver: @Sendable (SharedResponse) -> Void { { r in self.got.withLock { $0.append(r) } } }
    }

    @Test func viewersOfOnePartAreCheckedOnceAndShareOneAnswer() throws {
        let (stream, rest) = try Blocking.stream()
        let next = Blocking.hint(stream)
        let request = PlaylistRequest(msn: next.msn, part: next.part)
        let inbox = Inbox()
        let renders = stream.playlistRenders
        let parked = (0..<50).map { _ in
            stream.answerMediaPlaylist(rendition: "video", request: request, deliver: inbox.deliver)
        }
        #expect(parked.allSatisfy { $0 != nil })
        #expect(stream.parkedRequests == 50 && stream.blockedRequests == 50 && inbox.all.isEmpty)
        let checks = stream.parked.checks
        var changes = 0
        for f in rest where inbox.all.isEmpty {
            stream.mutate { $0.apply(f, now: .now) }
            changes += 1
        }
        // Every change checked the one group once, not each of the 50 waiters.
        #expect(stream.parked.checks - checks <= changes)
        #expect(inbox.all.count == 50 && stream.parkedRequests == 0)
        let first = try #require(inbox.all.first)
        #expect(inbox.all.allSatisfy { $0 === first })
        #expect(first.response.status == 200 && first.response.maxAge == 12)
        #expect(String(decoding: first.response.body, as: UTF8.self).contains("\(next.msn).\(next.part).m4s"))
        #expect(stream.playlistRenders == renders + 1)
    }

    @Test func aReadyRequestIsAnsweredAtOnceFromTheSharedAnswer() throws {
        let (stream, _) = try Blocking.stream()
        let last = try #require(stream.state.withLock { $0.rendition(.video).lastPart })
        let inbox = Inbox()
        let request = PlaylistRequest(msn: last.msn, part: last.part)
        for _ in 0..<3 {
            #expect(stream.answerMediaPlaylist(rendition: "video", request: request, deliver: inbox.deliver) == nil)
        }
        #expect(inbox.all.count == 3 && inbox.all.allSatisfy { $0 === inbox.all[0] })
    }

    /// The render-once cache keys: URL (rendition, msn, part, skip, blocking or not) and, for playlists, the state.
    @Test func sharedAnswersAreKeyedByRequestAndState() throws {
        let (stream, rest) = try Blocking.stream()
        let last = try #require(stream.state.withLock { $0.rendition(.video).lastPart })
        func ask(_ r: PlaylistRequest, _ name: String = "video") -> SharedResponse? {
            let inbox = Inbox()
            _ = stream.answerMediaPlaylist(rendition: name, request: r, deliver: inbox.deliver)
            return inbox.all.first
        }
        let blocking = PlaylistRequest(msn: last.msn, part: last.part)
        let a = try #require(ask(blocking))
        #expect(ask(blocking) === a)
        let delta = try #require(ask(PlaylistRequest(msn: last.msn, part: last.part, skip: true)))
        let plain = try #require(ask(PlaylistRequest()))
        let earlier = try #require(ask(PlaylistRequest(msn: last.msn - 1)))
        let audio = try #require(ask(PlaylistRequest(), "audio"))
        #expect(delta !== a && plain !== a && earlier !== a && audio !== plain)
        // Same body for the blocking and plain playlist at one state, but not the same caching: two answers.
        #expect(plain.response.body == a.response.body && plain.response.maxAge != a.response.maxAge)
        // A change makes the playlist another answer; a part's bytes stay one answer for good.
        let m0 = Blocking.m0
        let partInbox = Inbox()
        let part = "\(m0).0.m4s"
        #expect(
            stream.answerMedia(epoch: Fixtures.epoch, rendition: "video", file: part, deliver: partInbox.deliver) == nil
        )
        let reached = Blocking.reached(Blocking.hint(stream))
        for f in rest where !stream.state.withLock({ reached($0) }) { stream.mutate { $0.apply(f, now: .now) } }
        #expect(ask(blocking) !== a)
        #expect(
            stream.answerMedia(epoch: Fixtures.epoch, rendition: "video", file: part, deliver: partInbox.deliver) == nil
        )
        #expect(partInbox.all.count == 2 && partInbox.all[0] === partInbox.all[1])
        #expect(partInbox.all[0].response.immutable && partInbox.all[0].response.status == 200)
    }

    @Test func theHintedPartParksAndTheListedPartWakesIt() throws {
        let (stream, rest) = try Blocking.stream()
        let next = Blocking.hint(stream)
        let inbox = Inbox()
        let file = "\(next.msn).\(next.part).m4s"
        let parked = stream.answerMedia(epoch: Fixtures.epoch, rendition: "video", file: file, deliver: inbox.deliver)
        #expect(parked != nil && inbox.all.isEmpty)
        for f in rest where inbox.all.isEmpty { stream.mutate { $0.apply(f, now: .now) } }
        let r = try #require(inbox.all.first).response
        #expect(r.status == 200 && r.immutable && r.contentType == "video/mp4")
    }

    @Test func aParkedRequestTimesOutOnceWithB6sAnswer() throws {
        let (stream, _) = try Blocking.stream()
        let next = Blocking.hint(stream)
        let inbox = Inbox()
        let request = PlaylistRequest(msn: next.msn, part: next.part)
        let parked = try #require(
            stream.answerMediaPlaylist(rendition: "video", request: request, deliver: inbox.deliver)
        )
        // B6: held just past hls.js's own abort (max(3 × PT, 0.8 × TD)), far within 3 × TD.
        #expect(parked.deadline > .now + .milliseconds(600) && parked.deadline < .now + .seconds(3))
        stream.expire(parked)
        stream.expire(parked)
        #expect(inbox.all.count == 1)
        #expect(inbox.all[0].response.status == 503 && inbox.all[0].response.maxAge == 0)
        #expect(stream.parkedRequests == 0)
    }

    @Test func aWithdrawnRequestGetsNoAnswer() throws {
        let (stream, rest) = try Blocking.stream()
        let next = Blocking.hint(stream)
        let inbox = Inbox()
        let parked = try #require(
            stream.answerMediaPlaylist(
                rendition: "video",
                request: PlaylistRequest(msn: next.msn, part: next.part),
                deliver: inbox.deliver
            )
        )
        stream.withdraw(parked)
        for f in rest.prefix(40) { stream.mutate { $0.apply(f, now: .now) } }
        stream.expire(parked)
        #expect(inbox.all.isEmpty && stream.parkedRequests == 0)
    }

    @Test func parkingAfterAChangeIsRefusedSoTheRequestIsCheckedAgain() {
        let board = ParkedRequests()
        let key = ParkedRequests.Key.media(epoch: "e", rendition: "video", file: "1.0.m4s")
        let seen = board.version
        _ = board.takeAll()
        #expect(board.park(key, deadline: .now + .seconds(1), seen: seen, deliver: { _ in }) == nil)
        #expect(board.park(key, deadline: .now + .seconds(1), seen: board.version, deliver: { _ in }) != nil)
        #expect(board.count == 1)
    }

    @Test func aGroupPutBackAfterItsDeadlineIsAnsweredNow() {
        let board = ParkedRequests()
        let key = ParkedRequests.Key.playlist(rendition: "video", request: PlaylistRequest(msn: 9, part: 0))
        let late = ParkedRequests.Waiter(id: 1, deadline: .now - .milliseconds(1), deliver: { _ in })
        let waiting = ParkedRequests.Waiter(id: 2, deadline: .now + .seconds(5), deliver: { _ in })
        let answerNow = board.restore(key, [late, waiting])
        #expect(answerNow.map(\.id) == [1])
        #expect(board.count == 1 && board.remove(key, id: 2) != nil && board.remove(key, id: 2) == nil)
    }
}
