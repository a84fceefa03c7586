import LLHLSPackager
import MediaCore
import Synchronization
import Testing

@testable import LLHLSPackager

/// A media element's plain reload during its start-up that would list nothing new waits for the next segment
/// (Chromium's native player gives up when its first reload lists nothing new, see `LLHLSStreamState+StartupHold`);
/// first loads and scripts are never held.
@Suite struct StartupHoldTests {
    typealias Blocking = LLHLSStreamBlockingTests

    /// A stream `seconds` in, cut 0.4 s after its first frame (`FirstSegmentTests.config`: 1 s GOP stated by x264,
    /// TARGETDURATION 1); returns it and the rest of 4 s of frames.
    static func stream(seconds: Double) throws -> (LLHLSStream, [MediaFrame]) {
        let stream = LLHLSStream(key: Fixtures.key, epoch: Fixtures.epoch, config: FirstSegmentTests.config)
        let d = try Fixtures.description()
        let frames = FirstSegmentTests.source(seconds: 4, gop: 30, keyint: 30)
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
        let (stream, rest) = try Self.stream(seconds: 0.5)
        let complete = try #require(stream.state.withLock { $0.rendition(.video).lastCompleteMSN })
        // Its first load is answered at once…
        let first = await stream.mediaPlaylist(.video, request: Self.fromVideoElement())
        #expect(Self.segments(first) == ["ep/video/\(complete).m4s"])
        // …and another viewer's too.
        let other = await stream.mediaPlaylist(.video, request: Self.fromVideoElement("10.0.0.2"))
        #expect(Self.segments(other) == ["ep/video/\(complete).m4s"])
        // Its reload, with nothing new listed, waits for the next segment (0.4 s to 1 s).
        async let reload = stream.mediaPlaylist(.video, request: Self.fromVideoElement())
        try await Blocking.waitForBlocked(stream)
        try await Blocking.feed(stream, rest) { ($0.rendition(.video).lastCompleteMSN ?? 0) > complete }
        let r = await reload
        #expect(r.status == 200)
        #expect(r.maxAge == 1, "a plain load is cached briefly, held or not")
        #expect(Self.segments(r) == ["ep/video/\(complete).m4s", "ep/video/\(complete + 1).m4s"])
    }

    @Test func aScriptsReloadOfTheSameYoungPlaylistIsAnsweredAtOnce() async throws {
        let (stream, _) = try Self.stream(seconds: 0.5)
        let complete = try #require(stream.state.withLock { $0.rendition(.video).lastCompleteMSN })
        for _ in 0..<2 {
            let r = await stream.mediaPlaylist(.video, request: PlaylistRequest())
            #expect(r.status == 200)
            #expect(Self.segments(r) == ["ep/video/\(complete).m4s"])
        }
    }

    /// At any age: Chromium starts playing with its queue empty and fails unless that reload lists a newer segment.
    @Test func onceATargetDurationIsListedAMediaElementsFirstLoadIsAnsweredAtOnceAndItsReloadHeld() async throws {
        let (stream, _) = try Self.stream(seconds: 1.1)
        let r = await stream.mediaPlaylist(.video, request: Self.fromVideoElement())
        #expect(r.status == 200)
        #expect(Self.segments(r).count == 2)
        let held = stream.state.withLock { $0.pinningStartupHold(Self.fromVideoElement(), rendition: "video") }
        #expect(held.heldUntilSegment == 3)
    }

    /// Past its start-up a client's reloads are answered at once (holding them all cost Chromium 2.4 s of latency).
    @Test func pastTheStartupWindowAReloadIsAnsweredAtOnce() throws {
        let (stream, _) = try Self.stream(seconds: 1.1)
        let first = ContinuousClock.now
        let (within, after) = stream.state.withLock { s in
            _ = s.pinningStartupHold(Self.fromVideoElement(), rendition: "video", now: first)
            let within = s.pinningStartupHold(Self.fromVideoElement(), rendition: "video", now: first + .seconds(2.9))
            let after = s.pinningStartupHold(Self.fromVideoElement(), rendition: "video", now: first + .seconds(3.1))
            return (within.heldUntilSegment, after.heldUntilSegment)
        }
        #expect(within == 3)
        #expect(after == nil)
    }

    /// Golden table of the pin over one client's loads: (seconds published, loads so far) → segment waited for.
    @Test(arguments: [
        (0.5, [PlaylistRequest](), nil as Int?),  // a first load
        (0.5, [fromVideoElement()], 2),  // its reload: the 0.4 s segment listed, wait for the second
        (0.5, [fromVideoElement(), fromVideoElement()], 3),  // another reload before that answer: the third
        (0.5, [fromVideoElement("10.0.0.9")], nil),  // another client's first load
        (0.5, [PlaylistRequest()], nil),  // after a script's load
        (1.1, [fromVideoElement()], 3),  // a whole TARGETDURATION (0.4 + 0.6 s) listed: held all the same
    ])
    func theHeldSegmentIsFixedOnArrival(seconds: Double, before: [PlaylistRequest], pinned: Int?) throws {
        let (stream, _) = try Self.stream(seconds: seconds)
        let held = stream.state.withLock { s in
            for r in before { _ = s.pinningStartupHold(r, rendition: "video") }
            return s.pinningStartupHold(Self.fromVideoElement(), rendition: "video")
        }
        #expect(held.heldUntilSegment == pinned)
    }

    @Test func aBlockingReloadIsNeverPinned() throws {
        let (stream, _) = try Self.stream(seconds: 0.5)
        var blocking = PlaylistRequest(msn: 1)
        blocking.fromMediaElement = true
        let held = stream.state.withLock { s in
            _ = s.pinningStartupHold(Self.fromVideoElement(), rendition: "video")
            return s.pinningStartupHold(blocking, rendition: "video")
        }
        #expect(held.heldUntilSegment == nil)
    }
}
