import HLSPlaylist
import MediaCore
import Testing

/// One media playlist model and the exact text it must render to (RFC 8216bis §4.4.3–§4.4.5, checklist M1–M9).
struct PlaylistCase: CustomTestStringConvertible, Sendable {
    var name: String
    var playlist: MediaPlaylist
    var skipping: Int = 0
    var text: String
    var testDescription: String { name }
}

/// Shared pieces of the golden playlists.
enum Fixture {
    /// 2025-11-22T00:00:00.000Z.
    static let t0 = WallTime(millisecondsSince1970: 1_763_769_600_000)
    static let partTarget = MediaTime(value: 18_090, timescale: 90_000)
    static let serverControl = ServerControl(
        canBlockReload: true,
        partHoldBack: .milliseconds(603),
        holdBack: .seconds(6),
        canSkipUntil: .seconds(12)
    )
    static let header = """
        #EXT-X-TARGETDURATION:2
        #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=12.000,HOLD-BACK=6.000,PART-HOLD-BACK=0.603
        #EXT-X-PART-INF:PART-TARGET=0.20100
        """

    static func ticks(_ v: Int64) -> MediaTime { MediaTime(value: v, timescale: 90_000) }

    static func part(_ msn: Int, _ i: Int, independent: Bool = false) -> MediaPart {
        MediaPart(duration: ticks(18_000), uri: "e/video/\(msn).\(i).m4s", independent: independent)
    }

    /// A complete 2 s segment listed without parts (aged out of the part window).
    static func old(_ msn: Int, map: String? = nil, at seconds: Int64) -> MediaSegment {
        MediaSegment(
            mediaSequence: msn,
            duration: ticks(180_000),
            uri: "e/video/\(msn).m4s",
            programDateTime: t0.advanced(by: .seconds(seconds)),
            mapURI: map
        )
    }

    /// Segments 41…42 complete, 43 open with one part; 42 follows a reconnect.
    static let live = MediaPlaylist(
        targetDuration: 2,
        partTarget: partTarget,
        serverControl: serverControl,
        mediaSequence: 41,
        discontinuitySequence: 2,
        segments: [
            old(41, map: "e/video/init-0.mp4", at: 0),
            MediaSegment(
                mediaSequence: 42,
                duration: ticks(36_000),
                uri: "e/video/42.m4s",
                parts: [part(42, 0, independent: true), part(42, 1)],
                discontinuity: true,
                programDateTime: t0.advanced(by: .milliseconds(2_500)),
                mapURI: "e/video/init-1.mp4"
            ),
            MediaSegment(
                mediaSequence: 43,
                duration: ticks(18_000),
                uri: nil,
                parts: [part(43, 0, independent: true)],
                programDateTime: t0.advanced(by: .milliseconds(2_900))
            ),
        ],
        preloadHintURI: "e/video/43.1.m4s",
        renditionReports: [RenditionReport(uri: "audio.m3u8", lastMSN: 43, lastPart: 0)]
    )

    /// Four complete segments sharing one init section, then an open one.
    static let long = MediaPlaylist(
        targetDuration: 2,
        partTarget: partTarget,
        serverControl: serverControl,
        mediaSequence: 7,
        segments: [
            old(7, map: "e/video/init-0.mp4", at: 0), old(8, at: 2), old(9, at: 4), old(10, at: 6),
            MediaSegment(
                mediaSequence: 11,
                duration: ticks(18_000),
                uri: nil,
                parts: [part(11, 0, independent: true)],
                programDateTime: t0.advanced(by: .seconds(8))
            ),
        ],
        preloadHintURI: "e/video/11.1.m4s"
    )
}

extension PlaylistCase {
    static let all: [PlaylistCase] = [
        PlaylistCase(
            name: "live LL playlist: header order, DISCONTINUITY then MAP then PDT before the parts, hint, report",
            playlist: Fixture.live,
            text: """
                #EXTM3U
                #EXT-X-VERSION:6
                \(Fixture.header)
                #EXT-X-MEDIA-SEQUENCE:41
                #EXT-X-DISCONTINUITY-SEQUENCE:2
                #EXT-X-MAP:URI="e/video/init-0.mp4"
                #EXT-X-PROGRAM-DATE-TIME:2025-11-22T00:00:00.000Z
                #EXTINF:2.00000,
                e/video/41.m4s
                #EXT-X-DISCONTINUITY
                #EXT-X-MAP:URI="e/video/init-1.mp4"
                #EXT-X-PROGRAM-DATE-TIME:2025-11-22T00:00:02.500Z
                #EXT-X-PART:DURATION=0.20000,URI="e/video/42.0.m4s",INDEPENDENT=YES
                #EXT-X-PART:DURATION=0.20000,URI="e/video/42.1.m4s"
                #EXTINF:0.40000,
                e/video/42.m4s
                #EXT-X-PROGRAM-DATE-TIME:2025-11-22T00:00:02.900Z
                #EXT-X-PART:DURATION=0.20000,URI="e/video/43.0.m4s",INDEPENDENT=YES
                #EXT-X-PRELOAD-HINT:TYPE=PART,URI="e/video/43.1.m4s"
                #EXT-X-RENDITION-REPORT:URI="audio.m3u8",LAST-MSN=43,LAST-PART=0

                """
        ),
        PlaylistCase(
            name: "ended playlist: ENDLIST and no preload hint",
            playlist: {
                var p = Fixture.live
                p.endList = true
                p.segments[2].uri = "e/video/43.m4s"
                return p
            }(),
            text: """
                #EXTM3U
                #EXT-X-VERSION:6
                \(Fixture.header)
                #EXT-X-MEDIA-SEQUENCE:41
                #EXT-X-DISCONTINUITY-SEQUENCE:2
                #EXT-X-MAP:URI="e/video/init-0.mp4"
                #EXT-X-PROGRAM-DATE-TIME:2025-11-22T00:00:00.000Z
                #EXTINF:2.00000,
                e/video/41.m4s
                #EXT-X-DISCONTINUITY
                #EXT-X-MAP:URI="e/video/init-1.mp4"
                #EXT-X-PROGRAM-DATE-TIME:2025-11-22T00:00:02.500Z
                #EXT-X-PART:DURATION=0.20000,URI="e/video/42.0.m4s",INDEPENDENT=YES
                #EXT-X-PART:DURATION=0.20000,URI="e/video/42.1.m4s"
                #EXTINF:0.40000,
                e/video/42.m4s
                #EXT-X-PROGRAM-DATE-TIME:2025-11-22T00:00:02.900Z
                #EXT-X-PART:DURATION=0.20000,URI="e/video/43.0.m4s",INDEPENDENT=YES
                #EXTINF:0.20000,
                e/video/43.m4s
                #EXT-X-ENDLIST
                #EXT-X-RENDITION-REPORT:URI="audio.m3u8",LAST-MSN=43,LAST-PART=0

                """
        ),
        PlaylistCase(
            name: "delta update: VERSION 9, SKIP right after the sequence tags, MAP of the skipped segments kept",
            playlist: Fixture.long,
            skipping: 2,
            text: """
                #EXTM3U
                #EXT-X-VERSION:9
                \(Fixture.header)
                #EXT-X-MEDIA-SEQUENCE:7
                #EXT-X-DISCONTINUITY-SEQUENCE:0
                #EXT-X-SKIP:SKIPPED-SEGMENTS=2
                #EXT-X-MAP:URI="e/video/init-0.mp4"
                #EXT-X-PROGRAM-DATE-TIME:2025-11-22T00:00:04.000Z
                #EXTINF:2.00000,
                e/video/9.m4s
                #EXT-X-PROGRAM-DATE-TIME:2025-11-22T00:00:06.000Z
                #EXTINF:2.00000,
                e/video/10.m4s
                #EXT-X-PROGRAM-DATE-TIME:2025-11-22T00:00:08.000Z
                #EXT-X-PART:DURATION=0.20000,URI="e/video/11.0.m4s",INDEPENDENT=YES
                #EXT-X-PRELOAD-HINT:TYPE=PART,URI="e/video/11.1.m4s"

                """
        ),
        PlaylistCase(
            name: "classic playlist without parts, server control or PDT",
            playlist: MediaPlaylist(
                targetDuration: 4,
                partTarget: nil,
                serverControl: nil,
                mediaSequence: 0,
                segments: [
                    MediaSegment(
                        mediaSequence: 0,
                        duration: MediaTime(value: 12_012, timescale: 3_000),
                        uri: "0.m4s",
                        mapURI: "init.mp4"
                    ),
                    MediaSegment(mediaSequence: 1, duration: MediaTime(value: 3_003, timescale: 1_000), uri: "1.m4s"),
                ],
                endList: true,
                independentSegments: true
            ),
            text: """
                #EXTM3U
                #EXT-X-VERSION:6
                #EXT-X-TARGETDURATION:4
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-MEDIA-SEQUENCE:0
                #EXT-X-DISCONTINUITY-SEQUENCE:0
                #EXT-X-MAP:URI="init.mp4"
                #EXTINF:4.00400,
                0.m4s
                #EXTINF:3.00300,
                1.m4s
                #EXT-X-ENDLIST

                """
        ),
    ]
}

@Suite("MediaPlaylist rendering")
struct MediaPlaylistRenderTests {
    @Test(arguments: PlaylistCase.all)
    func rendersExactText(_ c: PlaylistCase) {
        #expect(c.playlist.render(skipping: c.skipping) == c.text)
    }

    @Test(arguments: PlaylistCase.all)
    func everyPartPrecedesItsParentsEXTINFAndFollowsThePreviousURI(_ c: PlaylistCase) {
        // P2: a part's MSN is its parent's; its URI names that MSN and it sits between the previous URI and its EXTINF.
        var lastSegmentURI: Int?
        for line in c.playlist.render(skipping: c.skipping).split(separator: "\n") {
            if line.hasSuffix(".m4s"), !line.hasPrefix("#"), let msn = Int(line.split(separator: "/").last!.dropLast(4))
            {
                lastSegmentURI = msn
            }
            if line.hasPrefix("#EXT-X-PART:"), let uri = line.split(separator: "\"").dropFirst().first {
                let msn = Int(uri.split(separator: "/").last!.split(separator: ".")[0])!
                #expect(
                    lastSegmentURI.map { msn == $0 + 1 } ?? true,
                    "\(line) after segment \(String(describing: lastSegmentURI))"
                )
            }
        }
    }

    @Test func endListSuppressesThePreloadHintEvenWhenOneIsSet() {
        var p = Fixture.live
        p.endList = true
        let text = p.render()
        #expect(text.contains("#EXT-X-ENDLIST\n"))
        #expect(!text.contains("PRELOAD-HINT"))
    }

    @Test func deltaOfZeroSegmentsIsTheFullPlaylist() {
        #expect(Fixture.long.render(skipping: 0) == Fixture.long.render())
        #expect(!Fixture.long.render().contains("EXT-X-SKIP"))
    }

    @Test func skipCountIsClampedToTheSegmentsListed() {
        let text = Fixture.long.render(skipping: 99)
        #expect(text.contains("#EXT-X-SKIP:SKIPPED-SEGMENTS=5\n"))
        #expect(!text.contains("#EXTINF"))
    }

    @Test func discontinuityComesBeforeMapAndDateOfItsSegmentOnly() {
        let lines = Fixture.live.render().split(separator: "\n").map(String.init)
        let d = lines.firstIndex(of: "#EXT-X-DISCONTINUITY")!
        #expect(lines[d - 1] == "e/video/41.m4s")
        #expect(lines[d + 1] == "#EXT-X-MAP:URI=\"e/video/init-1.mp4\"")
        #expect(lines[d + 2].hasPrefix("#EXT-X-PROGRAM-DATE-TIME:"))
        #expect(lines.filter { $0 == "#EXT-X-DISCONTINUITY" }.count == 1)
    }

    @Test func mapIsRepeatedOnlyWhenTheInitSectionChanges() {
        var p = Fixture.long
        p.segments[2].mapURI = "e/video/init-0.mp4"
        p.segments[3].mapURI = "e/video/init-1.mp4"
        let maps = p.render().split(separator: "\n").filter { $0.hasPrefix("#EXT-X-MAP") }
        #expect(maps == ["#EXT-X-MAP:URI=\"e/video/init-0.mp4\"", "#EXT-X-MAP:URI=\"e/video/init-1.mp4\""])
    }

    @Test func renditionReportOmitsLastPartWhenTheRenditionHasNoParts() {
        #expect(
            RenditionReport(uri: "a.m3u8", lastMSN: 3, lastPart: nil).render()
                == "#EXT-X-RENDITION-REPORT:URI=\"a.m3u8\",LAST-MSN=3"
        )
    }

    @Test func gapPartsCarryGapYes() {
        let p = MediaPart(duration: Fixture.ticks(9_000), uri: "x.m4s", independent: false, gap: true)
        #expect(p.render() == "#EXT-X-PART:DURATION=0.10000,URI=\"x.m4s\",GAP=YES")
    }

    @Test func serverControlWritesOnlyTheAttributesItHas() {
        let sc = ServerControl(
            canBlockReload: false,
            partHoldBack: .milliseconds(1_500),
            holdBack: nil,
            canSkipUntil: nil
        )
        #expect(sc.render() == "#EXT-X-SERVER-CONTROL:PART-HOLD-BACK=1.500")
    }
}
