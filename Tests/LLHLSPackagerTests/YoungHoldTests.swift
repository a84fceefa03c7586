import LLHLSPackager
import MediaCore
import Synchronization
import Testing

@testable import LLHLSPackager

/// A media element's plain reload of a young rendition that would list nothing new waits for the next segment
/// (Chromium's native player gives up when its first reload lists nothing new, see `LLHLSStreamState+YoungHold`);
/// first loads and scripts are never held.
@Suite struct YoungHoldTests {
    typealias Blocking = LLHLSStreamBlockingTests

    /// A stream `seconds` in (2 s GOP: TARGETDURATION 2, HOLD-BACK 6 s); returns it and the rest of 10 s of frames.
    static func stream(seconds: Double) throws -> (LLHLSStream, [MediaFrame]) {
        let stream = LLHLSStream(key: Fixtures.key, epoch: Fixtures.epoch, config: LLHLSConfiguration())
        let d = try Fixtures.description()
        let frames = Fixtures.av(seconds: 10)
        let split = frames.firstIndex { $0.kind == .video && $0.dts.seconds >= seconds }!
        stream.mutate { $0.beginSession(now: .now) + $0.apply(d, now: .now) + $0.feed(frames[..<split]) }
        return (stream, Array(frames[split...]))
    }

    static func segments(_ r: HLSResponse) -> [String] {
        String(decoding: r.body, as: UTF8.self).split(separator: "\n").filter {
            $0.hasSuffix(".m4s") && !$0.hasPrefix("#")
        }
        .map(String.init)
    }

    static func fromVideoElement(_ client: String = "10.0.0.1") -> PlaylistRequest {
        var r = PlaylistRequest()
        r.fromMediaElement = true
        r.client = client
        return r
    }

    @Test func aMediaElementsReloadOfAYoungPlaylistWaitsForTheNextSegment() async throws {
        let (stream, rest) = try Self.stream(seconds: 2.5)
        let complete = try #require(stream.state.withLock { $0.rendition(.video).lastCompleteMSN })
        // Its first load is answered at once…
        let first = await stream.mediaPlaylist(.video, request: Self.fromVideoElement())
        #expect(Self.segments(first) == ["ep/video/\(complete).m4s"])
        // …and another viewer's too.
        let other = await stream.mediaPlaylist(.video, request: Self.fromVideoElement("10.0.0.2"))
        #expect(Self.segments(other) == ["ep/video/\(complete).m4s"])
        // Its reload, with nothing new listed, waits for the next segment.
        async let reload = stream.mediaPlaylist(.video, request: Self.fromVideoElement())
        try await Blocking.waitForBlocked(stream)
        try await Blocking.feed(stream, rest) { ($0.rendition(.video).lastCompleteMSN ?? 0) > complete }
        let r = await reload
        #expect(r.status == 200)
        #expect(r.maxAge == 1, "a plain load is cached briefly, held or not")
        #expect(Self.segments(r) == ["ep/video/\(complete).m4s", "ep/video/\(complete + 1).m4s"])
    }

    @Test func aScriptsReloadOfTheSameYoungPlaylistIsAnsweredAtOnce() async throws {
        let (stream, _) = try Self.stream(seconds: 2.5)
        let complete = try #require(stream.state.withLock { $0.rendition(.video).lastCompleteMSN })
        for _ in 0..<2 {
            let r = await stream.mediaPlaylist(.video, request: PlaylistRequest())
            #expect(r.status == 200)
            #expect(Self.segments(r) == ["ep/video/\(complete).m4s"])
        }
    }

    @Test func onceHoldBackIsListedAMediaElementsReloadIsAnsweredAtOnce() async throws {
        let (stream, _) = try Self.stream(seconds: 7)
        for _ in 0..<2 {
            let r = await stream.mediaPlaylist(.video, request: Self.fromVideoElement())
            #expect(r.status == 200)
            #expect(Self.segments(r).count == 3)
        }
    }

    /// Golden table of the pin over one client's loads: (seconds published, loads so far) → segment waited for.
    @Test(arguments: [
        (2.5, [PlaylistRequest](), nil as Int?),  // a first load
        (2.5, [fromVideoElement()], 2),  // its reload: one 2 s segment listed, wait for the second
        (2.5, [fromVideoElement(), fromVideoElement()], 3),  // another reload before that answer: the third
        (2.5, [fromVideoElement("10.0.0.9")], nil),  // another client's first load
        (2.5, [PlaylistRequest()], nil),  // after a script's load
        (4.5, [fromVideoElement()], 3),
        (7.0, [fromVideoElement()], nil),  // HOLD-BACK (3 × 2 s) listed: no longer young
    ])
    func theHeldSegmentIsFixedOnArrival(seconds: Double, before: [PlaylistRequest], pinned: Int?) throws {
        let (stream, _) = try Self.stream(seconds: seconds)
        let held = stream.state.withLock { s in
            for r in before { _ = s.pinningYoungHold(r, rendition: "video") }
            return s.pinningYoungHold(Self.fromVideoElement(), rendition: "video")
        }
        #expect(held.heldUntilSegment == pinned)
    }

    @Test func aBlockingReloadIsNeverPinned() throws {
        let (stream, _) = try Self.stream(seconds: 2.5)
        var blocking = PlaylistRequest(msn: 2)
        blocking.fromMediaElement = true
        let held = stream.state.withLock { s in
            _ = s.pinningYoungHold(Self.fromVideoElement(), rendition: "video")
            return s.pinningYoungHold(blocking, rendition: "video")
        }
        #expect(held.heldUntilSegment == nil)
    }
}
