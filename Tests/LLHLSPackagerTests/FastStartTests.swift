import HLSPlaylist
import Logging
import MediaCore
import StreamHub
import Testing

@testable import LLHLSPackager

/// A stream is served as soon as its first segment is complete in every rendition; a rung that cannot start does not
/// hold it back for longer than `rungStartLimit`, and a rung without media is never advertised.
@Suite struct FastStartTests {
    static func ladder() throws -> LLHLSStreamState {
        var s = Fixtures.state(try Fixtures.description())
        // A rung smaller than the source (a source-size rung would replace the passthrough, see +LongGOP).
        var rung = try Fixtures.video()
        rung.width /= 2
        rung.height /= 2
        s.applyRung("360p", description: StreamDescription(video: rung, audio: nil), now: .now)
        return s
    }

    @Test func multivariantWaitsForTheFirstSegmentOfEveryRendition() throws {
        var s = try Self.ladder()
        let frames = Fixtures.av(seconds: 2.5, gop: 30)
        for f in frames {
            s.apply(f, now: .now)
            if s.rendition(.video).lastCompleteMSN != nil && s.rungs["360p"]?.rendition.lastCompleteMSN == nil {
                #expect(s.multivariantPlaylist() == nil, "the rung has no segment yet")
            }
            if f.kind == .video { s.applyRung("360p", frame: f, now: .now) }
        }
        #expect(s.rungs["360p"]?.rendition.lastCompleteMSN != nil)
        let text = try #require(s.multivariantPlaylist()).render()
        #expect(text.contains("video.m3u8") && text.contains("360p.m3u8"))
    }

    @Test func aRungThatCannotStartIsLeftOutAfterTheLimit() throws {
        var s = try Self.ladder()
        s.feed(Fixtures.av(seconds: 2.5, gop: 30))
        #expect(s.rendition(.video).lastCompleteMSN != nil)
        #expect(s.multivariantPlaylist(now: .now) == nil)
        let later = ContinuousClock.now + RenditionListing.rungStartLimit + .milliseconds(10)
        let text = try #require(s.multivariantPlaylist(now: later)).render()
        #expect(text.contains("video.m3u8") && !text.contains("360p.m3u8"))
    }

    /// The first segment completes as the keyframe that ends it arrives (and audio's first frame past it, which waits
    /// for the video frame after the keyframe), not when the next segment's first part closes a part later: 1.07 s of
    /// a 1 s GOP is playable, 0.99 s is not.
    @Test func servedAsTheKeyframeEndingTheFirstSegmentArrives() throws {
        var early = Fixtures.state(try Fixtures.description())
        early.feed(Fixtures.av(seconds: 0.99, gop: 30))
        #expect(early.multivariantPlaylist(now: .now) == nil)
        var s = Fixtures.state(try Fixtures.description())
        s.feed(Fixtures.av(seconds: 1.07, gop: 30))
        #expect(s.rendition(.video).lastCompleteMSN == PublishedRendition.firstMSN)
        #expect(s.rendition(.audio).lastCompleteMSN == PublishedRendition.firstMSN)
        let text = try #require(s.multivariantPlaylist(now: .now)).render()
        #expect(text.contains("video.m3u8"))
        let media = try #require(s.mediaPlaylist(.video)).render()
        #expect(media.contains("#EXTINF:1.0") && media.contains("#EXT-X-PRELOAD-HINT:TYPE=PART,URI="), "\(media)")
    }

    @Test func nothingIsServedBeforeTheFirstSegment() throws {
        var s = Fixtures.state(try Fixtures.description())
        s.feed(Fixtures.av(seconds: 0.9, gop: 30))
        #expect(s.rendition(.video).lastPart != nil)
        #expect(s.multivariantPlaylist(now: .now + .seconds(10)) == nil)
        #expect(s.video?.hasFirstMedia == false)
    }

    @Test func playlistRequestForAKeyNotLiveYetIsAnsweredWhenItsPublisherArrives() async throws {
        let hub = StreamHub()
        let packager = LLHLSPackager(hub: hub, logger: .init(label: "test"))
        let run = Task { await packager.run() }
        defer { run.cancel() }
        let key = try #require(StreamKey("late"))
        async let found = packager.stream(for: key, waitingUpTo: .seconds(5))
        try await Task.sleep(for: .milliseconds(100))
        let publication = try hub.publish(key: key, origin: "test")
        defer { publication.end() }
        #expect(await found?.key == key)
        let missing = try #require(StreamKey("never"))
        let start = ContinuousClock.now
        #expect(await packager.stream(for: missing, waitingUpTo: .milliseconds(200)) == nil)
        #expect(ContinuousClock.now - start >= .milliseconds(200))
    }
}
