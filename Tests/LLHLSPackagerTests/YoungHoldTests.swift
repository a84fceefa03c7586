import LLHLSPackager
import MediaCore
import Synchronization
import Testing

@testable import LLHLSPackager

/// A media element's plain playlist load of a young rendition waits for the next segment (Chromium's native player
/// gives up when its first reload lists nothing new, see `LLHLSStreamState+YoungHold`); scripts are never held.
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

    static var fromVideoElement: PlaylistRequest {
        var r = PlaylistRequest()
        r.fromMediaElement = true
        return r
    }

    @Test func aMediaElementsLoadOfAYoungPlaylistWaitsForTheNextSegment() async throws {
        let (stream, rest) = try Self.stream(seconds: 2.5)
        let complete = try #require(stream.state.withLock { $0.rendition(.video).lastCompleteMSN })
        async let response = stream.mediaPlaylist(.video, request: Self.fromVideoElement)
        try await Blocking.waitForBlocked(stream)
        try await Blocking.feed(stream, rest) { ($0.rendition(.video).lastCompleteMSN ?? 0) > complete }
        let r = await response
        #expect(r.status == 200)
        #expect(r.maxAge == 1, "a plain load is cached briefly, held or not")
        #expect(Self.segments(r) == ["ep/video/\(complete).m4s", "ep/video/\(complete + 1).m4s"])
    }

    @Test func aScriptsLoadOfTheSameYoungPlaylistIsAnsweredAtOnce() async throws {
        let (stream, _) = try Self.stream(seconds: 2.5)
        let complete = try #require(stream.state.withLock { $0.rendition(.video).lastCompleteMSN })
        let r = await stream.mediaPlaylist(.video, request: PlaylistRequest())
        #expect(r.status == 200)
        #expect(Self.segments(r) == ["ep/video/\(complete).m4s"])
    }

    @Test func onceHoldBackIsListedAMediaElementIsAnsweredAtOnce() async throws {
        let (stream, _) = try Self.stream(seconds: 7)
        let r = await stream.mediaPlaylist(.video, request: Self.fromVideoElement)
        #expect(r.status == 200)
        #expect(Self.segments(r).count == 3)
    }

    /// Golden table of the pin: the segment a held load waits for is fixed when it arrives.
    @Test(arguments: [
        (2.5, true, false, 2 as Int?),  // one 2 s segment complete: wait for the second
        (4.5, true, false, 3),
        (2.5, false, false, nil),  // a script
        (2.5, true, true, nil),  // a blocking reload has its own target
        (7.0, true, false, nil),  // HOLD-BACK (3 × 2 s) listed: no longer young
    ])
    func theHeldSegmentIsFixedOnArrival(seconds: Double, mediaElement: Bool, blocking: Bool, pinned: Int?) throws {
        let (stream, _) = try Self.stream(seconds: seconds)
        var request = blocking ? PlaylistRequest(msn: 1) : PlaylistRequest()
        request.fromMediaElement = mediaElement
        let held = stream.state.withLock { $0.pinningYoungHold(request, rendition: "video") }
        #expect(held.heldUntilSegment == pinned)
    }
}
