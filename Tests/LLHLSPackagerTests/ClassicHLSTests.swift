import HLSPlaylist
import MediaCore
import Testing

@testable import LLHLSPackager

/// `hls.low_latency: false`: the same segments as classic HLS (RFC 8216bis §4.4 without §4.4.3.7–§4.4.5.4 LL tags).
@Suite("Classic HLS mode")
struct ClassicHLSTests {
    static let m0 = PublishedRendition.firstMSN

    static var classic: LLHLSConfiguration {
        var c = LLHLSConfiguration()
        c.lowLatency = false
        return c
    }

    /// 7 s of 30 fps A/V with 2 s GOPs in classic mode: segments m0…m0+2 complete, m0+3 open.
    static func sevenSeconds() throws -> LLHLSStreamState {
        var s = Fixtures.state(try Fixtures.description(), config: classic)
        s.feed(Fixtures.av(seconds: 7))
        return s
    }

    @Test func classicPlaylistListsCompleteSegmentsOnly() throws {
        let s = try Self.sevenSeconds()
        let m = Self.m0
        let text = try #require(s.mediaPlaylist(.video)).render()
        #expect(
            text == """
                #EXTM3U
                #EXT-X-VERSION:6
                #EXT-X-TARGETDURATION:2
                #EXT-X-MEDIA-SEQUENCE:\(m)
                #EXT-X-DISCONTINUITY-SEQUENCE:0
                #EXT-X-MAP:URI="ep/video/init-0.mp4"
                #EXT-X-PROGRAM-DATE-TIME:2025-11-22T00:00:00.000Z
                #EXTINF:2.00000,
                ep/video/\(m).m4s
                #EXT-X-PROGRAM-DATE-TIME:2025-11-22T00:00:02.000Z
                #EXTINF:2.00000,
                ep/video/\(m + 1).m4s
                #EXT-X-PROGRAM-DATE-TIME:2025-11-22T00:00:04.000Z
                #EXTINF:2.00000,
                ep/video/\(m + 2).m4s

                """
        )
    }

    @Test func classicAudioPlaylistHasNoLowLatencyTags() throws {
        let s = try Self.sevenSeconds()
        let text = try #require(s.mediaPlaylist(.audio)).render()
        for tag in ["EXT-X-PART", "EXT-X-PRELOAD-HINT", "EXT-X-SERVER-CONTROL", "EXT-X-RENDITION-REPORT", "EXT-X-SKIP"]
        {
            #expect(!text.contains(tag), "\(tag) in classic audio playlist")
        }
        #expect(text.contains("#EXTINF:") && text.contains("ep/audio/\(Self.m0 + 2).m4s\n"))
    }

    @Test func lowLatencyDefaultStillListsPartsForTheSameFrames() throws {
        var s = Fixtures.state(try Fixtures.description())
        s.feed(Fixtures.av(seconds: 7))
        let text = try #require(s.mediaPlaylist(.video)).render()
        #expect(
            text.contains("#EXT-X-PART-INF:") && text.contains("#EXT-X-PRELOAD-HINT:")
                && text.contains("#EXT-X-RENDITION-REPORT:")
        )
    }

    @Test func endedClassicPlaylistClosesTheOpenSegmentWithEndList() throws {
        var s = try Self.sevenSeconds()
        s.end(now: .now)
        let text = try #require(s.mediaPlaylist(.video)).render()
        #expect(text.hasSuffix("#EXTINF:1.00000,\nep/video/\(Self.m0 + 3).m4s\n#EXT-X-ENDLIST\n"))
        #expect(!text.contains("EXT-X-PART"))
    }

    @Test func deliveryDirectivesAreRefusedInClassicMode() throws {
        let s = try Self.sevenSeconds()
        #expect(s.decide(.video, PlaylistRequest()) == .ready)
        for r in [PlaylistRequest(msn: Self.m0), PlaylistRequest(msn: Self.m0 + 3, part: 0)] {
            guard case .badRequest(let why) = s.decide(.video, r) else {
                Issue.record("\(r) was not refused")
                continue
            }
            #expect(why.contains("_HLS_msn"))
        }
    }

    @Test func originAnswersBlockingRequestWith400AndPartsWith404() async throws {
        let stream = LLHLSStream(key: Fixtures.key, epoch: Fixtures.epoch, config: Self.classic)
        let d = try Fixtures.description()
        stream.mutate {
            $0.beginSession(now: .now) + $0.apply(d, now: .now) + $0.feed(Fixtures.av(seconds: 7))
        }
        let blocking = await stream.mediaPlaylist(.video, request: PlaylistRequest(msn: Self.m0 + 3, part: 1))
        #expect(blocking.status == 400)
        let plain = await stream.mediaPlaylist(.video, request: PlaylistRequest(skip: true))
        #expect(plain.status == 200 && !String(decoding: plain.body, as: UTF8.self).contains("EXT-X-SKIP"))
        #expect(await stream.media(epoch: Fixtures.epoch, kind: .video, file: "\(Self.m0).m4s").status == 200)
        #expect(await stream.media(epoch: Fixtures.epoch, kind: .video, file: "\(Self.m0).0.m4s").status == 404)
        // The part the LL-HLS mode would hint must not block either.
        #expect(await stream.media(epoch: Fixtures.epoch, kind: .video, file: "\(Self.m0 + 3).5.m4s").status == 404)
    }
}
