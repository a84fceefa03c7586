import HTTPClient
import MediaCore
import TestSupport
import Testing

@testable import SluiceBench

/// Playlist reading, URL resolution and the player clock model.
@Suite struct PlaylistAndPlayerTests {
    static let llhls = """
        #EXTM3U
        #EXT-X-VERSION:6
        #EXT-X-TARGETDURATION:2
        #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=12.000,HOLD-BACK=6.000,PART-HOLD-BACK=0.603
        #EXT-X-PART-INF:PART-TARGET=0.20100
        #EXT-X-MEDIA-SEQUENCE:7
        #EXT-X-MAP:URI="e/video/init-0.mp4"
        #EXTINF:2.00000,
        e/video/7.m4s
        #EXT-X-DISCONTINUITY
        #EXT-X-MAP:URI="e/video/init-1.mp4"
        #EXT-X-PART:DURATION=0.20000,URI="e/video/8.0.m4s",INDEPENDENT=YES
        #EXT-X-PART:DURATION=0.20000,URI="e/video/8.1.m4s"
        #EXTINF:0.40000,
        e/video/8.m4s
        #EXT-X-PART:DURATION=0.20000,URI="e/video/9.0.m4s",INDEPENDENT=YES
        #EXT-X-PART:DURATION=0.20000,URI="e/video/9.1.m4s",GAP=YES
        #EXT-X-PRELOAD-HINT:TYPE=PART,URI="e/video/9.2.m4s"
        #EXT-X-RENDITION-REPORT:URI="audio.m3u8",LAST-MSN=9,LAST-PART=1
        """

    @Test func readsAnLLHLSMediaPlaylist() throws {
        let p = try ReadPlaylist(parsing: Self.llhls, url: "t")
        #expect(p.targetDuration == 2 && p.partTarget == 0.201 && p.partHoldBack == 0.603 && p.canBlockReload)
        #expect(p.segments.map(\.msn) == [7, 8, 9])
        #expect(p.segments.map(\.uri) == ["e/video/7.m4s", "e/video/8.m4s", nil])
        #expect(p.segments.map(\.discontinuity) == [false, true, false])
        #expect(p.segments.map(\.map) == ["e/video/init-0.mp4", "e/video/init-1.mp4", "e/video/init-1.mp4"])
        #expect(p.parts.map { "\($0.msn).\($0.index)" } == ["8.0", "8.1", "9.0", "9.1"])
        #expect(p.parts.map(\.independent) == [true, false, true, false])
        #expect(p.parts.map(\.gap) == [false, false, false, true])
        #expect(!p.endList && !p.isMultivariant)
        let timeline = PartTimeline(p)
        #expect(zip(timeline.entries.map(\.start), [2.0, 2.2, 2.4, 2.6]).allSatisfy { abs($0 - $1) < 1e-9 })
        #expect(abs(timeline.edge - 2.8) < 1e-9)
    }

    /// The model settles PART-HOLD-BACK behind the edge of its first blocking reload, extrapolated to when playback
    /// started: join part 9.0 (timeline 2.4 s, first frame at pts 10 s) arrived 50 ms before a reload whose edge
    /// is 2.8 s, so the edge was at pts 10.4 − 0.05 s when the clock started, and the start is 0.603 s before that.
    @Test func settlesHoldBackBehindTheEdgeOfTheFirstBlockingReload() throws {
        let p = try ReadPlaylist(parsing: Self.llhls, url: "t")
        let join = try #require(p.parts.first { $0.msn == 9 && $0.index == 0 })
        let joinedAt = WallTime(nanosecondsSince1970: 1_000_000_000)
        let start = LLHLSViewer.settledStart(
            PartTimeline(p),
            join: join,
            joined: (earliest: .seconds(10), at: joinedAt),
            holdBack: 0.603,
            answeredAt: joinedAt.advanced(by: .milliseconds(50))
        )
        #expect(start == .milliseconds(10_400 - 603 - 50))
        var missing = join
        missing.msn = 3
        #expect(
            LLHLSViewer.settledStart(
                PartTimeline(p),
                join: missing,
                joined: (.seconds(10), joinedAt),
                holdBack: 0.603,
                answeredAt: joinedAt
            ) == nil
        )
    }

    @Test func readsAMultivariantPlaylistAndRejectsOtherText() throws {
        let text = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="main",URI="audio.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=2977000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,AUDIO="audio"
            video.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=640x360
            360p.m3u8
            """
        let p = try ReadPlaylist(parsing: text, url: "t")
        #expect(
            p.variants == [
                .init(uri: "video.m3u8", bandwidth: 2_977_000, height: 720),
                .init(uri: "360p.m3u8", bandwidth: 900_000, height: 360),
            ]
        )
        #expect(throws: BenchError.badPlaylist(url: "t", reason: "no #EXTM3U")) {
            try ReadPlaylist(parsing: "<html>", url: "t")
        }
    }

    @Test func attributeListsKeepCommasInsideQuotes() {
        #expect(
            ReadPlaylist.attributes(#"A=1,CODECS="avc1,mp4a",URI="x.m4s""#) == [
                "A": "1", "CODECS": "avc1,mp4a", "URI": "x.m4s",
            ]
        )
    }

    /// Resolution itself is HTTPLocation's (HTTPClientTests); the bench's wrappers throw its own error.
    @Test func benchURLsThrowTheBenchError() throws {
        let base = try HTTPLocation(parsing: "http://127.0.0.1:8080/live/x/video.m3u8?_HLS_msn=3")
        #expect(try base.resolved("e/video/1.0.m4s").target == "/live/x/e/video/1.0.m4s")
        #expect(throws: BenchError.invalidURL("http://:1/z")) { try base.resolved("http://:1/z") }
        for bad in ["h/p", "http://:80/", "http://h:99999/", "ftp://x"] {
            #expect(throws: BenchError.invalidURL(bad)) { try HTTPLocation(parsing: bad) }
        }
    }

    static func input(_ ms: Int64, available: Int64) -> PlayerModel.Input {
        PlayerModel.Input(position: .milliseconds(ms), available: WallTime(millisecondsSince1970: available))
    }

    @Test func playerPlaysAtOneXFromTheJoinPositionAndStallsForLateFrames() {
        // Frames every 100 ms; the third arrives 250 ms after it was due; the first is before the join position.
        let inputs = [
            Self.input(0, available: 1_000), Self.input(100, available: 1_000), Self.input(200, available: 1_000),
            Self.input(300, available: 1_350), Self.input(400, available: 1_350), Self.input(500, available: 1_000),
        ]
        let s = PlayerModel.schedule(inputs, startPosition: .milliseconds(50))
        let expected: [Int64?] = [nil, 1_000, 1_100, 1_350, 1_450, 1_550]
        #expect(s.displayed == expected.map { $0.map { WallTime(millisecondsSince1970: $0) } })
        #expect(s.stalls == 1)
        #expect(s.stalledFor == .milliseconds(150))
    }

    @Test func playerNeverShowsAFrameBeforeItArrivesOrFasterThanRealTime() {
        var rng = SeededRandom(seed: 0x91A7)
        for _ in 0..<200 {
            let inputs = (0..<50).map { i in
                Self.input(
                    Int64(i) * 33,
                    available: 1_000 + Int64(i / 6) * 200 + Int64.random(in: 0...400, using: &rng)
                )
            }
            let s = PlayerModel.schedule(inputs, startPosition: .zero)
            let shown = s.displayed.compactMap { $0 }
            #expect(shown.count == 50)
            #expect(zip(s.displayed, inputs).allSatisfy { $0! >= $1.available })
            #expect(zip(shown, shown.dropFirst()).allSatisfy { $1.duration(since: $0) >= .milliseconds(33) })
        }
    }
}
